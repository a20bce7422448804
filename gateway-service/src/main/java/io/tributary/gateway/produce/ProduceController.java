package io.tributary.gateway.produce;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.tributary.gateway.admin.TopicCatalog;
import io.tributary.gateway.admin.TopicNames;
import io.tributary.gateway.idempotency.Decision;
import io.tributary.gateway.idempotency.IdempotencyKey;
import io.tributary.gateway.idempotency.IdempotencyLog;
import io.tributary.gateway.idempotency.IdempotencyRecord;
import io.tributary.gateway.idempotency.RequestDigest;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.Problem;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.record.OutgoingRecord;
import io.tributary.gateway.record.RecordJson;
import io.tributary.gateway.record.Timestamps;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/** {@code POST .../records}: see the package documentation and the contract. */
@RestController
public class ProduceController {

    static final MediaType NDJSON = MediaType.parseMediaType("application/x-ndjson");

    /** On a replayed answer: {@code true}. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    private static final Logger log = LoggerFactory.getLogger(ProduceController.class);

    private final Producers producers;
    private final TopicCatalog catalog;
    private final RecordJson codec;
    private final ProduceProperties limits;
    private final Duration deliveryTimeout;
    private final GatewayMetrics metrics;
    private final JsonMapper json;
    private final IdempotencyLog idempotency;
    private final Duration idempotencyClaimTimeout;

    public ProduceController(
            Producers producers,
            TopicCatalog catalog,
            ProduceProperties limits,
            Duration deliveryTimeout,
            GatewayMetrics metrics,
            JsonMapper json,
            IdempotencyLog idempotency,
            Duration idempotencyClaimTimeout) {
        this.idempotency = idempotency;
        this.idempotencyClaimTimeout = idempotencyClaimTimeout;
        this.producers = producers;
        this.catalog = catalog;
        this.limits = limits;
        this.codec = new RecordJson(
                limits.maxRecordsPerRequest(), limits.maxRecordSize().toBytes());
        this.deliveryTimeout = deliveryTimeout;
        this.metrics = metrics;
        this.json = json;
    }

    @Operation(
            operationId = "produce",
            summary = "Produce records; Kafka's partitioner picks the partition",
            requestBody =
                    @io.swagger.v3.oas.annotations.parameters.RequestBody(
                            required = true,
                            content = {
                                @Content(
                                        mediaType = "application/json",
                                        schema =
                                                @Schema(
                                                        oneOf = {
                                                            ProduceSchemas.ProduceRecord.class,
                                                            ProduceSchemas.ProduceRequest.class
                                                        })),
                                @Content(mediaType = "application/x-ndjson", schema = @Schema(type = "string")),
                                @Content(mediaType = "*/*", schema = @Schema(type = "string", format = "binary"))
                            }))
    @ApiResponse(
            responseCode = "200",
            description = "Every record was written",
            content =
                    @Content(mediaType = "application/json", schema = @Schema(implementation = ProduceResponse.class)))
    @ApiResponse(
            responseCode = "207",
            description = "Some records were written",
            content =
                    @Content(mediaType = "application/json", schema = @Schema(implementation = ProduceResponse.class)))
    @PostMapping(path = "/v1/topics/{topic}/records")
    public ResponseEntity<?> produce(
            @PathVariable("topic") String topic,
            @RequestParam(name = "acks", required = false, defaultValue = "all") String acks,
            @RequestHeader(name = "Record-Key", required = false) String recordKey,
            @RequestHeader(name = IdempotencyKey.HEADER, required = false) String idempotencyKey,
            HttpServletRequest request,
            HttpServletResponse response)
            throws IOException {
        return handle(topic, Optional.empty(), acks, recordKey, idempotencyKey, request, response);
    }

    @Operation(
            operationId = "produceToPartition",
            summary = "Produce records to one partition",
            requestBody =
                    @io.swagger.v3.oas.annotations.parameters.RequestBody(
                            required = true,
                            content = {
                                @Content(
                                        mediaType = "application/json",
                                        schema =
                                                @Schema(
                                                        oneOf = {
                                                            ProduceSchemas.ProduceRecord.class,
                                                            ProduceSchemas.ProduceRequest.class
                                                        })),
                                @Content(mediaType = "application/x-ndjson", schema = @Schema(type = "string")),
                                @Content(mediaType = "*/*", schema = @Schema(type = "string", format = "binary"))
                            }))
    @ApiResponse(
            responseCode = "200",
            description = "Every record was written",
            content =
                    @Content(mediaType = "application/json", schema = @Schema(implementation = ProduceResponse.class)))
    @PostMapping(path = "/v1/topics/{topic}/partitions/{partition}/records")
    public ResponseEntity<?> produceToPartition(
            @PathVariable("topic") String topic,
            @PathVariable("partition") int partition,
            @RequestParam(name = "acks", required = false, defaultValue = "all") String acks,
            @RequestHeader(name = "Record-Key", required = false) String recordKey,
            @RequestHeader(name = IdempotencyKey.HEADER, required = false) String idempotencyKey,
            HttpServletRequest request,
            HttpServletResponse response)
            throws IOException {
        return handle(topic, Optional.of(partition), acks, recordKey, idempotencyKey, request, response);
    }

    private ResponseEntity<?> handle(
            String topic,
            Optional<Integer> pathPartition,
            String acksParam,
            String recordKey,
            String idempotencyHeader,
            HttpServletRequest request,
            HttpServletResponse response)
            throws IOException {
        TopicNames.requireValid(topic);
        Acks acks = Acks.parse(acksParam);
        Optional<IdempotencyKey> idempotencyKey =
                Optional.ofNullable(idempotencyHeader).map(h -> IdempotencyKey.parse(topic, h));
        if (pathPartition.isPresent()) {
            catalog.requirePartition(topic, pathPartition.get());
        } else {
            catalog.partitions(topic);
        }
        MediaType type = contentType(request);
        if (type != null && type.equalsTypeAndSubtype(NDJSON)) {
            if (idempotencyKey.isPresent()) {
                throw ProblemException.invalidParameter(
                        IdempotencyKey.HEADER,
                        "Idempotency-Key is not supported with application/x-ndjson (its answer is streamed as it"
                                + " is produced); send the records as application/json {\"records\":[...]}.");
            }
            streamNdjson(topic, pathPartition, acks, request, response);
            return null;
        }
        byte[] body = readBody(request);
        List<OutgoingRecord> records;
        if (type != null && type.equalsTypeAndSubtype(MediaType.APPLICATION_JSON)) {
            records = codec.readBody(body);
        } else {
            if (body.length > limits.maxRecordSize().toBytes()) {
                throw new ProblemException(
                        ProblemType.RECORD_TOO_LARGE,
                        "The record has %d bytes; the limit is %d."
                                .formatted(body.length, limits.maxRecordSize().toBytes()));
            }
            // the servlet container decodes header bytes as ISO-8859-1, one char per byte: this recovers
            // the bytes the client sent (UTF-8 from curl and browsers)
            byte[] key = recordKey == null ? null : recordKey.getBytes(StandardCharsets.ISO_8859_1);
            records = List.of(new OutgoingRecord(
                    java.util.OptionalInt.empty(), key, body, List.of(), java.util.OptionalLong.empty()));
        }
        List<OutgoingRecord> pinned = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            pinned.add(place(topic, pathPartition, records.get(i), records.size() == 1 ? -1 : i));
        }
        if (idempotencyKey.isEmpty()) {
            return produce(topic, acks, pinned);
        }
        String digest = RequestDigest.of(
                request.getMethod(),
                request.getRequestURI(),
                request.getQueryString(),
                request.getContentType(),
                recordKey,
                body);
        return idempotently(idempotencyKey.get(), digest, () -> produce(topic, acks, pinned));
    }

    /**
     * Claims the key, then does the request once (and records its answer), replays the answer of the
     * same request done before, or refuses (409 in progress, 422 reused): see {@code
     * io.tributary.gateway.idempotency}. The answer body is the same bytes for the first answer and
     * every replay.
     */
    private ResponseEntity<byte[]> idempotently(
            IdempotencyKey key, String digest, java.util.function.Supplier<ResponseEntity<byte[]>> produce) {
        IdempotencyLog.Claim claim = idempotency.claim(key, digest);
        return switch (claim.decision()) {
            case Decision.Replay replay -> replay(key, replay.result());
            case Decision.InProgress p ->
                throw new ProblemException(
                        ProblemType.IDEMPOTENCY_KEY_IN_PROGRESS,
                        ("The request with Idempotency-Key '%s' on topic %s is being done; retry after Retry-After."
                                        + " If it has no result %d s after it began, a retry does it again.")
                                .formatted(key.key(), key.topic(), idempotencyClaimTimeout.toSeconds()));
            case Decision.Reused r ->
                throw new ProblemException(
                        ProblemType.IDEMPOTENCY_KEY_REUSED,
                        ("Idempotency-Key '%s' on topic %s belongs to another request (its method, path, query,"
                                        + " Content-Type, Record-Key or body differ); use a new key.")
                                .formatted(key.key(), key.topic()));
            case Decision.Execute e -> execute(claim.claimed(), produce);
        };
    }

    private ResponseEntity<byte[]> execute(
            IdempotencyLog.Claimed claimed, java.util.function.Supplier<ResponseEntity<byte[]>> produce) {
        ResponseEntity<byte[]> answer;
        try {
            answer = produce.get();
        } catch (RuntimeException failed) {
            // nothing was written (as far as the producer knows): free the key so a retry does it
            int status = failed instanceof ProblemException p ? p.type().status() : 500;
            try {
                idempotency.release(claimed, status);
            } catch (ProblemException e) {
                log.warn(
                        "Could not release an idempotency claim ({}); retries wait for the claim timeout",
                        e.getMessage());
            }
            throw failed;
        }
        try {
            idempotency.recordResult(
                    claimed, answer.getStatusCode().value(), MediaType.APPLICATION_JSON_VALUE, answer.getBody());
        } catch (ProblemException e) {
            // the records are written: answer that; a retry waits for the claim timeout, then writes again
            log.warn(
                    "Could not record the result of an idempotent produce to {} ({}); a retry after the claim"
                            + " timeout writes again",
                    claimed.key().topic(),
                    e.getMessage());
        }
        return answer;
    }

    private static ResponseEntity<byte[]> replay(IdempotencyKey key, IdempotencyRecord.Result r) {
        if (r.body().isEmpty()) {
            throw new ProblemException(
                    ProblemType.IDEMPOTENT_RESPONSE_NOT_STORED,
                    ("The request with Idempotency-Key '%s' on topic %s was done (status %d) and its records written"
                                    + " once, but its answer had %d bytes, more than max-stored-response-size: only"
                                    + " its SHA-256 %s was kept.")
                            .formatted(key.key(), key.topic(), r.status(), r.bodyBytes(), r.bodySha256()));
        }
        return ResponseEntity.status(r.status())
                .header(REPLAYED_HEADER, "true")
                .contentType(MediaType.parseMediaType(r.contentType()))
                .body(r.body().get());
    }

    /**
     * Sends every record, then waits for each: 200, 207 when some failed, the first problem when all
     * did. The answer is written to bytes here rather than by the message converters (there is no
     * content negotiation to do), the same bytes an idempotent request records for its replays.
     */
    private ResponseEntity<byte[]> produce(String topic, Acks acks, List<OutgoingRecord> pinned) {
        Producer<byte[], byte[]> producer = producers.get(acks, Producers.Load.of(pinned.size()));
        List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>(pinned.size());
        for (OutgoingRecord r : pinned) {
            sent.add(send(producer, topic, r));
        }
        List<ProduceResult> results = new ArrayList<>(sent.size());
        long deadline = System.nanoTime() + deliveryTimeout.toNanos();
        int failed = 0;
        ProblemException firstFailure = null;
        for (CompletableFuture<RecordMetadata> f : sent) {
            try {
                results.add(written(await(f, deadline)));
            } catch (ProblemException e) {
                failed++;
                firstFailure = firstFailure == null ? e : firstFailure;
                metrics.error(e.type());
                results.add(ProduceResult.failed(Problem.of(e)));
            }
        }
        if (results.size() > failed) {
            metrics.produced(topic, acks.apiName(), results.size() - failed);
        }
        if (failed > 0 && failed == results.size()) {
            throw firstFailure;
        }
        return ResponseEntity.status(failed == 0 ? HttpStatus.OK : HttpStatus.MULTI_STATUS)
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ProduceResponse(results).toJson(json));
    }

    /**
     * Reads NDJSON line by line, sending each record as it is read and writing each result, in order,
     * as soon as it and all before it are known. At most {@code ndjson-in-flight} are awaited at once.
     * While more of the body is already there, reading goes on (records are pipelined into the
     * producer's batches); when the client pauses, every pending result is written and flushed first.
     */
    private void streamNdjson(
            String topic,
            Optional<Integer> pathPartition,
            Acks acks,
            HttpServletRequest request,
            HttpServletResponse response)
            throws IOException {
        Producer<byte[], byte[]> producer = producers.get(acks, Producers.Load.MULTI_RECORD);
        int maxLine =
                (int) Math.min(Integer.MAX_VALUE - 16, limits.maxBodySize().toBytes());
        NdjsonLines lines = new NdjsonLines(request.getInputStream(), maxLine);
        response.setStatus(HttpStatus.OK.value());
        response.setContentType(NDJSON.toString());
        OutputStream out = response.getOutputStream();
        ArrayDeque<CompletableFuture<RecordMetadata>> window = new ArrayDeque<>();
        long[] written = {0};
        int index = 0;
        for (Optional<NdjsonLines.Line> line = lines.next(); line.isPresent(); line = lines.next()) {
            CompletableFuture<RecordMetadata> f;
            try {
                if (line.get().tooLong()) {
                    throw new ProblemException(
                            ProblemType.RECORD_TOO_LARGE,
                            "Line %d is longer than %d bytes.".formatted(index + 1, maxLine),
                            Map.of("index", index));
                }
                OutgoingRecord r =
                        place(topic, pathPartition, codec.readLine(line.get().bytes(), index), index);
                f = send(producer, topic, r);
            } catch (ProblemException e) {
                f = CompletableFuture.failedFuture(e);
            }
            window.add(f);
            index++;
            while (!window.isEmpty() && (window.peek().isDone() || window.size() >= limits.ndjsonInFlight())) {
                writeLine(out, window.poll(), topic, acks, written);
            }
            if (!lines.ready()) {
                // The client has sent nothing more yet: answer everything sent so far before blocking on
                // the next read, so a client that waits for a result before sending more is not stuck.
                while (!window.isEmpty()) {
                    writeLine(out, window.poll(), topic, acks, written);
                }
                out.flush();
            }
        }
        while (!window.isEmpty()) {
            writeLine(out, window.poll(), topic, acks, written);
        }
        out.flush();
    }

    private void writeLine(
            OutputStream out, CompletableFuture<RecordMetadata> f, String topic, Acks acks, long[] written)
            throws IOException {
        ProduceResult result;
        try {
            result = written(await(f, System.nanoTime() + deliveryTimeout.toNanos()));
            metrics.produced(topic, acks.apiName(), 1);
        } catch (ProblemException e) {
            metrics.error(e.type());
            result = ProduceResult.failed(Problem.of(e));
        }
        out.write(json.writeValueAsBytes(result));
        out.write('\n');
        written[0]++;
    }

    /** The record with its partition decided where the request decides it, checked against the topic. */
    private OutgoingRecord place(String topic, Optional<Integer> pathPartition, OutgoingRecord r, int index) {
        if (pathPartition.isPresent()) {
            int p = pathPartition.get();
            if (r.partition().isPresent() && r.partition().getAsInt() != p) {
                throw new ProblemException(
                        ProblemType.INVALID_RECORD,
                        "%s names partition %d but the URL names partition %d."
                                .formatted(
                                        index < 0 ? "The record" : "Record " + index,
                                        r.partition().getAsInt(),
                                        p),
                        index < 0 ? Map.of() : Map.of("index", index));
            }
            return r.withPartition(p);
        }
        if (r.partition().isPresent()) {
            catalog.requirePartition(topic, r.partition().getAsInt());
        }
        return r;
    }

    /**
     * Sends {@code r}; a record without a key to a compacted topic fails at once with {@code
     * invalid-record} and is not sent (the broker would refuse the whole producer batch it is in).
     */
    private CompletableFuture<RecordMetadata> send(Producer<byte[], byte[]> producer, String topic, OutgoingRecord r) {
        if (r.key() == null) {
            try {
                if (catalog.compacted(topic)) {
                    return CompletableFuture.failedFuture(keylessToCompacted(topic));
                }
            } catch (ProblemException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(
                topic,
                r.partition().isPresent() ? r.partition().getAsInt() : null,
                r.timestampMs().isPresent() ? r.timestampMs().getAsLong() : null,
                r.key(),
                r.value(),
                r.headers());
        CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
        try {
            producer.send(record, (metadata, exception) -> {
                if (exception instanceof InvalidRecordException refused && r.key() == null) {
                    result.completeExceptionally(keyless(refused));
                } else if (exception != null) {
                    result.completeExceptionally(exception);
                } else {
                    result.complete(metadata);
                }
            });
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /** A record without a key to a compacted topic, refused by the gateway before it is sent. */
    private static ProblemException keylessToCompacted(String topic) {
        return new ProblemException(
                ProblemType.INVALID_RECORD,
                ("This record has no key, and topic '%s' is compacted (cleanup.policy=compact): it keeps the latest"
                                + " record of each key and refuses records without one, tombstones too. Give the"
                                + " record a key.")
                        .formatted(topic));
    }

    /**
     * A record without a key the cluster refused as invalid (the topic became compacted after the
     * gateway last asked): what Kafka (and Tributary) refuse
     * without a key is a record for a compacted topic, whose log keeps the latest record of each key.
     * Said here in the gateway's words, so the answer reads the same whichever cluster refused it.
     */
    private static ProblemException keyless(InvalidRecordException refused) {
        return new ProblemException(
                ProblemType.INVALID_RECORD,
                "The cluster refused this record, which has no key, as invalid (INVALID_RECORD): a compacted"
                        + " topic (cleanup.policy=compact) keeps the latest record of each key and refuses records"
                        + " without one, tombstones too. Give the record a key.",
                Map.of(),
                refused);
    }

    private static RecordMetadata await(CompletableFuture<RecordMetadata> f, long deadlineNanos) {
        try {
            return f.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while waiting for the cluster.");
        } catch (Exception e) {
            throw KafkaProblems.toProblem(e);
        }
    }

    private static ProduceResult written(RecordMetadata m) {
        return new ProduceResult(
                m.partition(),
                m.hasOffset() ? m.offset() : null,
                Timestamps.format(m.timestamp()).orElse(null),
                null);
    }

    /** The body, at most {@code max-body-size} bytes: 413 {@code body-too-large} beyond. */
    private byte[] readBody(HttpServletRequest request) throws IOException {
        long max = limits.maxBodySize().toBytes();
        long declared = request.getContentLengthLong();
        if (declared > max) {
            throw tooLarge(declared, max);
        }
        InputStream in = request.getInputStream();
        if (declared >= 0 && declared <= Integer.MAX_VALUE - 8) {
            // Content-Length: the container ends the stream there, so one array of that size holds it
            byte[] body = new byte[(int) declared];
            int read = in.readNBytes(body, 0, body.length);
            return read == body.length ? body : Arrays.copyOf(body, read);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream(8192);
        byte[] chunk = new byte[8192];
        long total = 0;
        for (int n = in.read(chunk); n > 0; n = in.read(chunk)) {
            total += n;
            if (total > max) {
                throw tooLarge(total, max);
            }
            body.write(chunk, 0, n);
        }
        return body.toByteArray();
    }

    private static ProblemException tooLarge(long size, long max) {
        return new ProblemException(
                ProblemType.BODY_TOO_LARGE,
                "The body has %s%d bytes; the limit is %d.".formatted(size > max ? "more than " : "", max, max));
    }

    private static MediaType contentType(HttpServletRequest request) {
        String header = request.getContentType();
        if (header == null || header.isBlank()) {
            return null;
        }
        try {
            return MediaType.parseMediaType(header);
        } catch (InvalidMediaTypeException e) {
            return null; // not JSON, not NDJSON: a raw record, whatever its type says
        }
    }
}
