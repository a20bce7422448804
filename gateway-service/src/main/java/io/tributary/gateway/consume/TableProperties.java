package io.tributary.gateway.consume;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Bounds on tables ({@code tributary.gateway.table.*}): {@code GET /v1/topics/{topic}/table} and the
 * snapshot of {@code GET /v1/topics/{topic}/events?snapshot=true} ({@code table.TableReader}).
 *
 * @param maxKeys the most keys one scan of one partition remembers (a 128-bit digest and an offset,
 *     about 100 bytes each on the heap): a partition with more live keys is read in several hash
 *     windows, two scans each
 * @param maxScans the most reads of one partition one table may make (digest scans, stopped ones
 *     too, and emit scans); one more is 422 {@code table-too-large}. About {@code 2 x live keys /
 *     max-keys + 2} are needed
 * @param readers tables (and snapshots) read at once on this gateway, each with a consumer of its
 *     own; one more waits {@code acquire-timeout}, then 429 {@code too-many-requests}
 * @param acquireTimeout how long a table waits for a free reader
 * @param fetchSize the most bytes one fetch of a table's consumer brings ({@code fetch.max.bytes} and
 *     {@code max.partition.fetch.bytes}; a larger record still comes alone)
 */
@Validated
@ConfigurationProperties("tributary.gateway.table")
public record TableProperties(
        @DefaultValue("100000") @Min(1) @Max(100_000_000) int maxKeys,
        @DefaultValue("64") @Min(2) @Max(1_000_000) int maxScans,
        @DefaultValue("4") @Min(1) @Max(256) int readers,
        @DefaultValue("2s") @NotNull Duration acquireTimeout,
        @DefaultValue("1MB") @NotNull DataSize fetchSize) {

    public TableProperties {
        if (fetchSize != null && (fetchSize.toBytes() <= 0 || fetchSize.toBytes() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException("tributary.gateway.table.fetch-size must be positive and under 2GB");
        }
    }
}
