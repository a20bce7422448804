package io.tributary.gateway.consume;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.tributary.gateway.admin.TopicCatalog;
import io.tributary.gateway.admin.TopicNames;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.record.RecordJson;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/** {@code GET /v1/topics/{topic}/partitions/{partition}/records}: the long-poll fetch. */
@RestController
public class FetchController {

    private static final JsonFactory JSON = JsonFactory.builder().build();
    private static final int DEFAULT_MAX_RECORDS = 500;
    private static final int DEFAULT_MAX_BYTES = 1_048_576;
    private static final long DEFAULT_MAX_WAIT_MS = 1_000;

    private final ConsumerPool pool;
    private final TopicCatalog catalog;
    private final FetchProperties limits;
    private final Duration clusterTimeout;
    private final GatewayMetrics metrics;

    public FetchController(
            ConsumerPool pool,
            TopicCatalog catalog,
            FetchProperties limits,
            Duration clusterTimeout,
            GatewayMetrics metrics) {
        this.pool = pool;
        this.catalog = catalog;
        this.limits = limits;
        this.clusterTimeout = clusterTimeout;
        this.metrics = metrics;
    }

    @Operation(operationId = "fetch", summary = "Long-poll fetch from one partition")
    @ApiResponse(
            responseCode = "200",
            description = "The records (possibly none) and where to continue",
            content =
                    @Content(
                            mediaType = "application/json",
                            schema = @Schema(implementation = FetchSchemas.FetchResponse.class)))
    @GetMapping(path = "/v1/topics/{topic}/partitions/{partition}/records")
    public ResponseEntity<byte[]> fetch(
            @PathVariable("topic") String topic,
            @PathVariable("partition") int partition,
            @RequestParam(name = "offset") String offset,
            @RequestParam(name = "max_records", required = false) String maxRecords,
            @RequestParam(name = "max_bytes", required = false) String maxBytes,
            @RequestParam(name = "max_wait_ms", required = false) String maxWaitMs) {
        TopicNames.requireValid(topic);
        long from = number("offset", offset, 0, Long.MAX_VALUE, 0);
        int recordsLimit = (int) number("max_records", maxRecords, 1, limits.maxRecords(), DEFAULT_MAX_RECORDS);
        long bytesLimit = number("max_bytes", maxBytes, 1, Integer.MAX_VALUE, DEFAULT_MAX_BYTES);
        long waitMs = number("max_wait_ms", maxWaitMs, 0, limits.maxWait().toMillis(), DEFAULT_MAX_WAIT_MS);
        catalog.requirePartition(topic, partition);

        TopicPartition tp = new TopicPartition(topic, partition);
        Consumer<byte[], byte[]> consumer = pool.acquire();
        try {
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
            List<ConsumerRecord<byte[], byte[]>> got = List.of();
            long deadline = System.nanoTime() + Duration.ofMillis(waitMs).toNanos();
            do {
                long remainingMs = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(remainingMs));
                if (!polled.isEmpty()) {
                    got = polled.records(tp);
                    break;
                }
            } while (System.nanoTime() < deadline);

            List<ConsumerRecord<byte[], byte[]>> answer = new ArrayList<>();
            long bytes = 0;
            for (ConsumerRecord<byte[], byte[]> r : got) {
                long size = RecordJson.sizeBytes(r);
                if (answer.size() >= recordsLimit || (!answer.isEmpty() && bytes + size > bytesLimit)) {
                    break;
                }
                answer.add(r);
                bytes += size;
            }
            long next =
                    answer.size() < got.size() ? answer.getLast().offset() + 1 : consumer.position(tp, clusterTimeout);
            if (!answer.isEmpty()) {
                metrics.consumed(topic, "fetch", answer.size());
            }
            return ResponseEntity.ok()
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(write(topic, partition, next, answer));
        } catch (OffsetOutOfRangeException e) {
            throw outOfRange(consumer, tp, from);
        } catch (KafkaException e) {
            throw KafkaProblems.toProblem(e);
        } finally {
            pool.release(consumer);
        }
    }

    /** 410 when retention removed {@code offset}, 400 when it is past the end of the log. */
    private ProblemException outOfRange(Consumer<byte[], byte[]> consumer, TopicPartition tp, long offset) {
        try {
            long start = consumer.beginningOffsets(List.of(tp), clusterTimeout).get(tp);
            if (offset < start) {
                return new ProblemException(
                        ProblemType.OFFSET_BELOW_LOG_START,
                        "Offset %d of %s was removed by retention; the log starts at %d.".formatted(offset, tp, start),
                        Map.of("log_start_offset", start));
            }
            long end = consumer.endOffsets(List.of(tp), clusterTimeout).get(tp);
            return new ProblemException(
                    ProblemType.OFFSET_BEYOND_LOG_END,
                    "Offset %d of %s is past the end of the log (%d).".formatted(offset, tp, end),
                    Map.of("parameter", "offset"));
        } catch (KafkaException e) {
            return KafkaProblems.toProblem(e);
        }
    }

    private static byte[] write(
            String topic, int partition, long nextOffset, List<ConsumerRecord<byte[], byte[]>> records) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out)) {
            g.writeStartObject();
            g.writeStringProperty("topic", topic);
            g.writeNumberProperty("partition", partition);
            g.writeNumberProperty("next_offset", nextOffset);
            g.writeName("records");
            g.writeStartArray();
            for (ConsumerRecord<byte[], byte[]> r : records) {
                RecordJson.writeConsumed(g, r);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    /** A whole number in {@code [min, max]}, or {@code absent} when not given; 400 otherwise. */
    private static long number(String name, String text, long min, long max, long absent) {
        if (text == null) {
            return absent;
        }
        long n;
        try {
            n = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw ProblemException.invalidParameter(name, "%s must be a whole number, got '%s'.".formatted(name, text));
        }
        if (n < min || n > max) {
            throw ProblemException.invalidParameter(
                    name, "%s must be between %d and %d, got %d.".formatted(name, min, max, n));
        }
        return n;
    }
}
