package io.tributary.coordinator.app;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The consumer lag metric on the coordinator leader ({@code tributary.coordinator.lag.*}).
 *
 * @param refreshInterval how often lag is recomputed (each time one listOffsets round to the brokers)
 * @param maxSeries the most (group, topic) series of {@code tributary_consumer_group_lag_records};
 *     the first ones in (group, topic) order are kept
 * @param requestTimeout how long one refresh's listOffsets may take
 */
@Validated
@ConfigurationProperties("tributary.coordinator.lag")
public record ConsumerLagProperties(
        @DefaultValue("10s") @NotNull Duration refreshInterval,
        @DefaultValue("1000") @Min(0) @Max(1_000_000) int maxSeries,
        @DefaultValue("5s") @NotNull Duration requestTimeout) {

    public ConsumerLagProperties {
        if (refreshInterval != null && !refreshInterval.isPositive()) {
            throw new IllegalArgumentException(
                    "tributary.coordinator.lag.refresh-interval must be positive, got " + refreshInterval);
        }
        if (requestTimeout != null && !requestTimeout.isPositive()) {
            throw new IllegalArgumentException(
                    "tributary.coordinator.lag.request-timeout must be positive, got " + requestTimeout);
        }
    }
}
