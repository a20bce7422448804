/**
 * {@code Idempotency-Key} for produce requests, shared by every gateway replica through the cluster
 * itself: an internal topic (the idempotency log) holds a {@code claim} record per attempt and a
 * {@code result} (or {@code release}) per executed request, each keyed by {@code <topic>/<key>}
 * ({@link io.tributary.gateway.idempotency.IdempotencyRecord} defines the records field by field).
 *
 * <pre>
 *   request K ──► claim(K, digest) ──acks=all──► partition hash(K), offset o
 *                                                      │
 *   tail reader (one per replica) reads up to o ◄──────┘   folds K's records: KeyHistory
 *        │
 *        ├── first live claim is ours   → Execute: produce, append result(o), answer
 *        ├── earlier claim, result      → Replay (same digest) | Reused 422 (other digest)
 *        └── earlier claim, no result   → InProgress 409 until claim-timeout, then takeover
 * </pre>
 *
 * <p>Invariant: a claim's decision depends only on the records before it in its partition (their
 * offsets, Kafka timestamps and digests), so every replica that reads the log decides the same: the
 * log is the one order of all attempts of a key, linearizable because each attempt is appended with
 * {@code acks=all} before it is decided. {@link io.tributary.gateway.idempotency.KeyHistory} is the
 * rule (pure, unit-tested); {@link io.tributary.gateway.idempotency.IdempotencyLog} appends, reads
 * and caches (bounded by entries, bytes and TTL). Core: plain Java with kafka-clients, no Spring.
 */
package io.tributary.gateway.idempotency;
