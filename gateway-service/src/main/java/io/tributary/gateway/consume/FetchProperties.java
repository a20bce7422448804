package io.tributary.gateway.consume;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Bounds on long-poll fetches ({@code tributary.gateway.fetch.*}).
 *
 * @param maxWait the longest {@code max_wait_ms} a client may ask for
 * @param maxRecords the largest {@code max_records}
 * @param consumers the size of the consumer pool: at most this many fetches run at once; one more
 *     waits {@code acquireTimeout} for a consumer, then gets 429 {@code too-many-requests}
 * @param acquireTimeout how long a fetch waits for a free consumer
 */
@Validated
@ConfigurationProperties("tributary.gateway.fetch")
public record FetchProperties(
        @DefaultValue("30s") @NotNull Duration maxWait,
        @DefaultValue("1000") @Min(1) @Max(100_000) int maxRecords,
        @DefaultValue("16") @Min(1) @Max(1024) int consumers,
        @DefaultValue("2s") @NotNull Duration acquireTimeout) {}
