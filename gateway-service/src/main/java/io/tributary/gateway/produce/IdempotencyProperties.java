package io.tributary.gateway.produce;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * {@code Idempotency-Key} on produce ({@code tributary.gateway.idempotency.*}); see {@code
 * io.tributary.gateway.idempotency}.
 *
 * @param topic the internal topic holding claims and results (created when missing)
 * @param topicPartitions its partition count when the gateway creates it (never add partitions to
 *     it later: a key's records must stay in one partition)
 * @param topicReplicationFactor its replication factor when the gateway creates it; {@code -1}: the
 *     cluster's default
 * @param keyTtl how long a key is remembered after its first claim; a retry later executes again
 * @param claimTimeout how long a claim without a result makes retries wait (409); after it, a retry
 *     executes the request again. At least 4 x {@code cluster-timeout}
 * @param maxClockSkew how far the replicas' clocks may disagree; keys are kept this much longer
 * @param cacheMaxEntries most keys a replica's cache holds; beyond, decisions scan the log
 * @param cacheMaxSize about the most bytes of keys and stored answers the cache holds
 * @param maxStoredResponseSize the largest answer stored whole; a larger one is stored as its
 *     SHA-256 and a retry gets 410 {@code idempotent-response-not-stored}
 */
@Validated
@ConfigurationProperties("tributary.gateway.idempotency")
public record IdempotencyProperties(
        @DefaultValue("__tributary_gateway_idempotency") @NotBlank
        String topic,

        @DefaultValue("16") @Min(1) @Max(10_000) int topicPartitions,
        @DefaultValue("-1") @Min(-1) @Max(32_767) int topicReplicationFactor,
        @DefaultValue("24h") @NotNull Duration keyTtl,
        @DefaultValue("2m") @NotNull Duration claimTimeout,
        @DefaultValue("30s") @NotNull Duration maxClockSkew,
        @DefaultValue("100000") @Min(1) @Max(100_000_000) int cacheMaxEntries,
        @DefaultValue("64MB") @NotNull DataSize cacheMaxSize,
        @DefaultValue("512KB") @NotNull DataSize maxStoredResponseSize) {

    public IdempotencyProperties {
        if (topicReplicationFactor == 0) {
            throw new IllegalArgumentException(
                    "tributary.gateway.idempotency.topic-replication-factor must be -1 (the cluster's default) or positive");
        }
        if (keyTtl != null && claimTimeout != null && claimTimeout.compareTo(keyTtl) >= 0) {
            throw new IllegalArgumentException(
                    "tributary.gateway.idempotency.claim-timeout must be shorter than key-ttl");
        }
        if (claimTimeout != null && claimTimeout.toMillis() <= 0) {
            throw new IllegalArgumentException("tributary.gateway.idempotency.claim-timeout must be positive");
        }
        if (maxClockSkew != null && maxClockSkew.isNegative()) {
            throw new IllegalArgumentException("tributary.gateway.idempotency.max-clock-skew must not be negative");
        }
        if (cacheMaxSize != null && cacheMaxSize.toBytes() < 1) {
            throw new IllegalArgumentException("tributary.gateway.idempotency.cache-max-size must be positive");
        }
        if (maxStoredResponseSize != null && maxStoredResponseSize.toBytes() < 0) {
            throw new IllegalArgumentException(
                    "tributary.gateway.idempotency.max-stored-response-size must not be negative");
        }
    }
}
