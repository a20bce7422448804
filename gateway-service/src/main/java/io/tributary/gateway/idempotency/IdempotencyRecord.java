package io.tributary.gateway.idempotency;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A record of the idempotency log (the gateway's internal topic, {@code
 * __tributary_gateway_idempotency} by default). Every record's Kafka key is the <em>scoped key</em>:
 * the UTF-8 bytes of {@code <topic>/<Idempotency-Key>} (see {@link IdempotencyKey}); its Kafka
 * timestamp is the writing replica's clock (CreateTime) and is part of the decision (TTL, claim
 * timeout); its partition is {@code toPositive(murmur2(key)) % partitions} (Kafka's default
 * partitioner). No Kafka headers. The value is one JSON object in UTF-8, members in this order:
 *
 * <pre>
 * claim    {"v":1,"type":"claim","request_sha256":"&lt;64 hex&gt;","replica":"&lt;replica id&gt;"}
 * result   {"v":1,"type":"result","claim_offset":&lt;long&gt;,"claim_timestamp":&lt;epoch ms&gt;,
 *           "request_sha256":"&lt;64 hex&gt;",
 *           "status":&lt;int&gt;,"content_type":"application/json",
 *           "body":"&lt;the response body, UTF-8 text&gt;",          (absent when not stored)
 *           "body_sha256":"&lt;64 hex&gt;","body_bytes":&lt;long&gt;}
 * release  {"v":1,"type":"release","claim_offset":&lt;long&gt;,"claim_timestamp":&lt;epoch ms&gt;,
 *           "request_sha256":"&lt;64 hex&gt;","status":&lt;int&gt;}
 * </pre>
 *
 * <ul>
 *   <li>{@code v}: format version, 1. A record with another version, another {@code type}, or that is
 *       not this JSON is skipped by readers (and logged once at WARN), never fatal.
 *   <li>{@code request_sha256}: the {@link RequestDigest} of the request (lowercase hex).
 *   <li>{@code replica}: the id of the gateway replica that wrote the claim (its {@code
 *       tributary.instance} and a random suffix drawn at start), so it finds its own claims.
 *   <li>{@code claim_offset}: the offset of the claim (same partition) this record answers, and
 *       {@code claim_timestamp} that claim's Kafka timestamp: a result or release proves its claim
 *       won, so a reader that did not see the claim (it started reading after it) still knows the
 *       key's state.
 *   <li>{@code status}: the HTTP status of the answer (200 or 207 for a result; the failure's status
 *       for a release).
 *   <li>{@code body}: the answer's body, present when it has at most {@code
 *       max-stored-response-size} bytes; {@code body_sha256} and {@code body_bytes} describe it
 *       always.
 *   <li>{@code release}: the claim's request was not done (every record failed, or the replica gave
 *       up before producing); the key is free again.
 * </ul>
 */
public sealed interface IdempotencyRecord {

    int VERSION = 1;

    /** A replica's claim of a key for the request with {@code requestSha256}. */
    record Claim(String requestSha256, String replica) implements IdempotencyRecord {}

    /** The answer of the request of the claim at {@code claimOffset}. */
    record Result(
            long claimOffset,
            long claimTimestampMs,
            String requestSha256,
            int status,
            String contentType,
            Optional<byte[]> body,
            String bodySha256,
            long bodyBytes)
            implements IdempotencyRecord {}

    /** The claim at {@code claimOffset} did nothing; the key may be claimed again. */
    record Release(long claimOffset, long claimTimestampMs, String requestSha256, int status)
            implements IdempotencyRecord {}

    /** The record's value bytes (the format above). */
    static byte[] encode(IdempotencyRecord record, JsonMapper json) {
        ObjectNode o = json.createObjectNode();
        o.put("v", VERSION);
        switch (record) {
            case Claim c -> {
                o.put("type", "claim");
                o.put("request_sha256", c.requestSha256());
                o.put("replica", c.replica());
            }
            case Result r -> {
                o.put("type", "result");
                o.put("claim_offset", r.claimOffset());
                o.put("claim_timestamp", r.claimTimestampMs());
                o.put("request_sha256", r.requestSha256());
                o.put("status", r.status());
                o.put("content_type", r.contentType());
                r.body().ifPresent(b -> o.put("body", new String(b, StandardCharsets.UTF_8)));
                o.put("body_sha256", r.bodySha256());
                o.put("body_bytes", r.bodyBytes());
            }
            case Release r -> {
                o.put("type", "release");
                o.put("claim_offset", r.claimOffset());
                o.put("claim_timestamp", r.claimTimestampMs());
                o.put("request_sha256", r.requestSha256());
                o.put("status", r.status());
            }
        }
        return json.writeValueAsBytes(o);
    }

    /** The record in {@code value}, or empty when it is not a record of this format. */
    static Optional<IdempotencyRecord> decode(byte[] value, JsonMapper json) {
        if (value == null) {
            return Optional.empty();
        }
        try {
            JsonNode o = json.readTree(value);
            if (!o.isObject() || o.path("v").asInt(-1) != VERSION) {
                return Optional.empty();
            }
            return switch (o.path("type").asString("")) {
                case "claim" -> Optional.of(new Claim(text(o, "request_sha256"), text(o, "replica")));
                case "result" ->
                    Optional.of(new Result(
                            number(o, "claim_offset"),
                            number(o, "claim_timestamp"),
                            text(o, "request_sha256"),
                            (int) number(o, "status"),
                            text(o, "content_type"),
                            o.has("body")
                                    ? Optional.of(text(o, "body").getBytes(StandardCharsets.UTF_8))
                                    : Optional.empty(),
                            text(o, "body_sha256"),
                            number(o, "body_bytes")));
                case "release" ->
                    Optional.of(new Release(
                            number(o, "claim_offset"), number(o, "claim_timestamp"), text(o, "request_sha256"), (int)
                                    number(o, "status")));
                default -> Optional.empty();
            };
        } catch (JacksonException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String text(JsonNode o, String field) {
        JsonNode n = o.get(field);
        if (n == null || !n.isString()) {
            throw new IllegalArgumentException("missing " + field);
        }
        return n.asString();
    }

    private static long number(JsonNode o, String field) {
        JsonNode n = o.get(field);
        if (n == null || !n.isIntegralNumber()) {
            throw new IllegalArgumentException("missing " + field);
        }
        return n.asLong();
    }
}
