package io.tributary.gateway.produce;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Bounds on produce requests ({@code tributary.gateway.produce.*}); above each the answer is a 413.
 *
 * @param maxBodySize the largest JSON or raw body; for NDJSON, the longest line
 * @param maxRecordsPerRequest the most records in one {@code {"records":[...]}} body
 * @param maxRecordSize the most bytes of key, value and headers of one record
 * @param ndjsonInFlight the most NDJSON records sent and not yet answered: what bounds a stream's
 *     memory (the producer's own buffer bounds the bytes)
 */
@Validated
@ConfigurationProperties("tributary.gateway.produce")
public record ProduceProperties(
        @DefaultValue("8MB") @NotNull DataSize maxBodySize,
        @DefaultValue("1000") @Min(1) @Max(100_000) int maxRecordsPerRequest,
        @DefaultValue("1MB") @NotNull DataSize maxRecordSize,
        @DefaultValue("512") @Min(1) @Max(100_000) int ndjsonInFlight) {

    public ProduceProperties {
        if (maxBodySize != null && maxBodySize.toBytes() < 1) {
            throw new IllegalArgumentException("tributary.gateway.produce.max-body-size must be positive");
        }
        if (maxRecordSize != null && maxRecordSize.toBytes() < 1) {
            throw new IllegalArgumentException("tributary.gateway.produce.max-record-size must be positive");
        }
    }
}
