/**
 * The record JSON of the HTTP API, in and out: {@link io.tributary.gateway.record.RecordJson} reads
 * produce bodies (one record, {@code {"records":[...]}}, one NDJSON line) into {@link
 * io.tributary.gateway.record.OutgoingRecord}s and writes consumed Kafka records as {@code
 * ConsumedRecord} JSON, the same object fetch answers with and SSE puts in {@code data:} (a tombstone,
 * Kafka's null value, is {@code "value":null,"tombstone":true} there, and the data of an SSE {@code
 * delete} event without a value).
 *
 * <p>Invariants: a JSON {@code value} is stored as the exact bytes of its JSON text as sent; a stored
 * value comes back as {@code value} exactly when it is valid UTF-8 JSON, otherwise as {@code
 * value_b64} (and so does the 4-byte text {@code null}, since {@code "value": null} is a tombstone), so every
 * byte sequence round-trips; a written record is always one line. Plain Java (no
 * Spring); thread-safe (no mutable state).
 */
package io.tributary.gateway.record;
