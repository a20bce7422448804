package io.tributary.coordinator.api;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Bounds of the control plane ({@code tributary.coordinator.control.*}).
 *
 * @param maxBodySize the largest request body accepted (413 above it)
 * @param maxWait the longest a metadata long poll may wait ({@code max_wait_ms} above it is a 400);
 *     below the 20 s graceful-shutdown phase, so a stop does not wait for parked polls
 * @param historyLength metadata versions whose changes each voter remembers; a broker further
 *     behind gets the full image
 * @param retryAfter the {@code Retry-After} of a 503 (no leader, write not committed)
 */
@Validated
@ConfigurationProperties("tributary.coordinator.control")
public record ControlPlaneProperties(
        @DefaultValue("1MB") @NotNull DataSize maxBodySize,
        @DefaultValue("15s") @NotNull Duration maxWait,
        @DefaultValue("1000") @Min(1) @Max(1_000_000) int historyLength,
        @DefaultValue("1s") @NotNull Duration retryAfter) {

    public ControlPlaneProperties {
        if (maxBodySize.toBytes() < 1) {
            throw new IllegalArgumentException("tributary.coordinator.control.max-body-size must be positive");
        }
        if (maxWait.isNegative() || maxWait.isZero()) {
            throw new IllegalArgumentException("tributary.coordinator.control.max-wait must be positive");
        }
        if (retryAfter.toSeconds() < 1) {
            throw new IllegalArgumentException("tributary.coordinator.control.retry-after must be 1s or more");
        }
    }
}
