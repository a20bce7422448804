/**
 * A topic read as a table: the latest record of every live key as of an offset vector (every
 * partition's end, taken once), for {@code GET /v1/topics/{topic}/table} and the snapshot of {@code
 * GET /v1/topics/{topic}/events?snapshot=true}.
 *
 * <pre>
 *   end offsets ──► vector V ──► per partition, per hash window of the keys:
 *                                  digest scan: log start .. V[p]  → key digest → latest offset (≤ max-keys)
 *                                  emit scan:   log start .. V[p]  → the records at those offsets → sink
 *                                ──► end line / snapshot-end: V as a cursor
 * </pre>
 *
 * <p>{@link io.tributary.gateway.table.TableReader} does the scans ({@link
 * io.tributary.gateway.table.KeyDigest} is what a key costs in memory, {@link
 * io.tributary.gateway.table.HashWindow} the slice of keys one pair of scans covers), {@link
 * io.tributary.gateway.table.TableJson} writes the end line. Invariants: memory is bounded by {@code
 * max-keys} digests and one fetch whatever the topic's size; each live key is emitted at most once,
 * with its latest record below V; nothing at or past V is emitted, so continuing from V neither
 * skips nor repeats a record. Core: plain Java with kafka-clients, no Spring (an architecture test
 * enforces it); the controller ({@code consume.TableController}) lives at the edge.
 */
package io.tributary.gateway.table;
