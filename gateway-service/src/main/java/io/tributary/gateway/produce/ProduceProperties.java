package io.tributary.gateway.produce;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
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
 * @param producerBatchSize the {@code batch.size} of the producers that carry single-record requests:
 *     the most bytes of records one batch to one partition holds (Kafka's default). Each batch takes
 *     a buffer of this size even for one record, and at 1,000 single-record requests per second 128 KB
 *     made the end-to-end tail worse (p99 about 100 ms against 15 ms; docs/benchmarks.md)
 * @param producerMultiRecordBatchSize the {@code batch.size} of the producers that carry requests of
 *     more than one record (JSON batches, NDJSON streams; see {@link Producers}). Such a request fills
 *     a large batch at once, and larger batches cost the gateway and the brokers less per byte: with
 *     64 KB the CPU per MB of batched produce (gateway, broker and load generator together) fell from
 *     12-13 ms to 6.4-8.5 ms (docs/benchmarks.md); 128 KB and 256 KB gave 5.8-7.0 ms. Each open batch
 *     takes a buffer of this size from {@code producer-buffer-memory} even for one record, and a
 *     request whose keyed records spread over many partitions opens one per partition: 64 KB leaves
 *     room for 512 open batches in the default 32 MB
 * @param producerLinger the shared producers' {@code linger.ms}: how long a batch that is not full
 *     waits for more records (Kafka's default). Every HTTP request waits for its records'
 *     acknowledgements, so a lower linger shortens a lone request's answer; under steady load it
 *     did the opposite (1 ms: more, smaller produce requests, and a worse tail end to end; see
 *     docs/benchmarks.md)
 * @param producerBufferMemory the shared producers' {@code buffer.memory} (Kafka's default): the most
 *     bytes of records accepted and not yet acknowledged, per producer (at most one per acks level
 *     for single-record and one for multi-record requests); when it is full a request
 *     waits (at most {@code cluster-timeout}) for room, then fails with 503
 */
@Validated
@ConfigurationProperties("tributary.gateway.produce")
public record ProduceProperties(
        @DefaultValue("8MB") @NotNull DataSize maxBodySize,
        @DefaultValue("1000") @Min(1) @Max(100_000) int maxRecordsPerRequest,
        @DefaultValue("1MB") @NotNull DataSize maxRecordSize,
        @DefaultValue("512") @Min(1) @Max(100_000) int ndjsonInFlight,
        @DefaultValue("16KB") @NotNull DataSize producerBatchSize,
        @DefaultValue("64KB") @NotNull DataSize producerMultiRecordBatchSize,
        @DefaultValue("5ms") @NotNull Duration producerLinger,
        @DefaultValue("32MB") @NotNull DataSize producerBufferMemory) {

    public ProduceProperties {
        if (maxBodySize != null && maxBodySize.toBytes() < 1) {
            throw new IllegalArgumentException("tributary.gateway.produce.max-body-size must be positive");
        }
        if (maxRecordSize != null && maxRecordSize.toBytes() < 1) {
            throw new IllegalArgumentException("tributary.gateway.produce.max-record-size must be positive");
        }
        requireBatchSize(producerBatchSize, "producer-batch-size");
        requireBatchSize(producerMultiRecordBatchSize, "producer-multi-record-batch-size");
        if (producerLinger != null && (producerLinger.isNegative() || producerLinger.toMillis() > 60_000)) {
            throw new IllegalArgumentException("tributary.gateway.produce.producer-linger must be 0 to 60s");
        }
        requireRoomFor(producerBufferMemory, producerBatchSize, "producer-batch-size");
        requireRoomFor(producerBufferMemory, producerMultiRecordBatchSize, "producer-multi-record-batch-size");
    }

    private static void requireBatchSize(DataSize size, String name) {
        if (size != null && (size.toBytes() < 1 || size.toBytes() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "tributary.gateway.produce." + name + " must be between 1 byte and 2 GiB");
        }
    }

    private static void requireRoomFor(DataSize bufferMemory, DataSize batchSize, String name) {
        if (bufferMemory != null && batchSize != null && bufferMemory.toBytes() < batchSize.toBytes()) {
            throw new IllegalArgumentException(
                    "tributary.gateway.produce.producer-buffer-memory must be at least " + name);
        }
    }
}
