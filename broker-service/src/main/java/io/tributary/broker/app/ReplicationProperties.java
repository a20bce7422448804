package io.tributary.broker.app;

import io.tributary.broker.cluster.BrokerListeners;
import io.tributary.broker.replication.ReplicationConfig;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Replication between brokers ({@code tributary.broker.replication.*}); Kafka's broker configs in
 * brackets.
 *
 * @param fetchMaxBytes bytes a follower asks per partition in one Fetch ({@code
 *     replica.fetch.max.bytes}); a larger first batch still comes whole
 * @param fetchResponseMaxBytes bytes a follower asks per Fetch response ({@code
 *     replica.fetch.response.max.bytes})
 * @param fetchMaxWait how long the leader may hold a follower's Fetch ({@code replica.fetch.wait.max.ms})
 * @param fetchMinBytes bytes the leader waits for ({@code replica.fetch.min.bytes})
 * @param fetchBackoff pause after a failed fetch ({@code replica.fetch.backoff.ms})
 * @param connectTimeout connecting to a leader
 * @param socketTimeout waiting for one answer from a leader ({@code replica.socket.timeout.ms});
 *     above {@code fetch-max-wait}
 * @param lagTimeMax a follower not caught up for this long leaves the ISR ({@code
 *     replica.lag.time.max.ms})
 * @param isrCheckInterval how often leaders look for lagging followers; unset: half of {@code
 *     lag-time-max}, as in Kafka
 * @param alterPartitionRetryBackoff pause before proposing an ISR change again after a failure
 * @param stopTimeout how long shutdown waits for each fetcher thread
 */
@Validated
@ConfigurationProperties("tributary.broker.replication")
public record ReplicationProperties(
        @DefaultValue("1MB") @NotNull DataSize fetchMaxBytes,
        @DefaultValue("10MB") @NotNull DataSize fetchResponseMaxBytes,
        @DefaultValue("500ms") @NotNull Duration fetchMaxWait,
        @DefaultValue("1") @Min(0) @Max(1_000_000_000) int fetchMinBytes,
        @DefaultValue("1s") @NotNull Duration fetchBackoff,
        @DefaultValue("5s") @NotNull Duration connectTimeout,
        @DefaultValue("30s") @NotNull Duration socketTimeout,
        @DefaultValue("30s") @NotNull Duration lagTimeMax,
        Duration isrCheckInterval,
        @DefaultValue("1s") @NotNull Duration alterPartitionRetryBackoff,
        @DefaultValue("5s") @NotNull Duration stopTimeout) {

    public ReplicationConfig toConfig() {
        return new ReplicationConfig(
                BrokerListeners.INTERNAL,
                toIntBytes(fetchMaxBytes, "fetch-max-bytes"),
                toIntBytes(fetchResponseMaxBytes, "fetch-response-max-bytes"),
                fetchMaxWait,
                fetchMinBytes,
                fetchBackoff,
                connectTimeout,
                socketTimeout,
                lagTimeMax,
                isrCheckInterval == null ? lagTimeMax.dividedBy(2) : isrCheckInterval,
                alterPartitionRetryBackoff,
                stopTimeout);
    }

    private static int toIntBytes(DataSize size, String key) {
        long bytes = size.toBytes();
        if (bytes < 1 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "tributary.broker.replication." + key + " must be 1B to 2GB, got " + size);
        }
        return (int) bytes;
    }
}
