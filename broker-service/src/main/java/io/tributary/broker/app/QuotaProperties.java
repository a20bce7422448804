package io.tributary.broker.app;

import io.tributary.broker.quota.QuotaConfig;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How client quotas are measured on this broker ({@code tributary.broker.quota.*}); the quotas
 * themselves are the cluster's (AlterClientQuotas, {@code kafka-configs.sh --entity-type users}).
 *
 * @param windowCount the windows a client's byte rate is measured over (Kafka's {@code
 *     quota.window.num}, 11)
 * @param windowSize each window's length (Kafka's {@code quota.window.size.seconds}, 1 s); a rate
 *     is measured over about {@code window-count × window-size}
 * @param maxTrackedClients the most (user, client id) rates kept per quota type; past it the one
 *     idle longest is forgotten (about 250 bytes each)
 */
@Validated
@ConfigurationProperties("tributary.broker.quota")
public record QuotaProperties(
        @DefaultValue("11") @Min(2) @Max(1000) int windowCount,
        @DefaultValue("1s") @NotNull Duration windowSize,
        @DefaultValue("100000") @Min(1) @Max(10_000_000) int maxTrackedClients) {

    QuotaConfig config() {
        return new QuotaConfig(windowCount, windowSize, maxTrackedClients);
    }
}
