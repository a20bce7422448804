/**
 * Consume over HTTP: the long-poll fetch {@code GET /v1/topics/{topic}/partitions/{p}/records}
 * and the Server-Sent Event stream {@code GET /v1/topics/{topic}/events} ({@link
 * io.tributary.gateway.consume.EventStreamController}, which has its own consumer pool). Fetches borrow a consumer from a bounded {@link
 * io.tributary.gateway.consume.ConsumerPool} (assign and seek, never a group), so a burst of requests
 * never creates and throws away consumers; when all are busy a fetch waits briefly, then gets 429.
 * The position is in the URL: the gateway keeps nothing between requests.
 *
 * <p>Tables: {@code GET /v1/topics/{topic}/table} ({@link
 * io.tributary.gateway.consume.TableController}, NDJSON) and the snapshot of an SSE stream with
 * {@code snapshot=true} ({@link io.tributary.gateway.consume.SnapshotPhase}) read a topic's latest
 * record per live key with {@code table.TableReader}, each with a consumer of {@link
 * io.tributary.gateway.consume.TableReaders} (at most {@code table.readers} at once) for the whole
 * read; bounds in {@link io.tributary.gateway.consume.TableProperties}. Invariant: a table or
 * snapshot holds nothing at or past its offset vector, and what follows it (the events endpoint
 * from its cursor, a snapshot stream's live events) starts exactly at the vector.
 */
package io.tributary.gateway.consume;
