/**
 * Client quota enforcement on a broker, as Kafka's {@code ClientQuotaManager}: which quota applies
 * to a (user, client id) ({@link io.tributary.broker.quota.QuotaResolver}: Kafka's eight-step
 * precedence, and which clients share one rate), the byte rate each measures over sampled windows
 * ({@link io.tributary.broker.quota.RateWindows}: {@code window-count} windows of {@code
 * window-size}, Kafka's {@code quota.window.num} and {@code quota.window.size.seconds}), and the
 * throttle time a client over its quota gets ({@link io.tributary.broker.quota.ByteRateQuota}).
 * {@link io.tributary.broker.quota.ProduceThrottle} and {@link
 * io.tributary.broker.quota.FetchThrottle} put it in {@code throttle_time_ms}; the listener then
 * mutes the connection for that long (reads nothing more from it), as Kafka's channel muting.
 *
 * <pre>
 *   Produce ──▶ ProduceHandler ──▶ response ──▶ ProduceThrottle: record request's record bytes
 *                                                 ├─ rate ≤ quota: throttle 0
 *                                                 └─ rate > quota: throttle = (rate − quota) / quota × window
 *   listener: write response, then read nothing from the connection for throttle_time_ms
 * </pre>
 *
 * <p>The other quota keys: {@link io.tributary.broker.quota.RequestTimeQuota} ({@code
 * request_percentage}: the time a request is worked on, waits apart, as a percent of one thread;
 * {@link io.tributary.broker.quota.RequestTimeThrottle} around every handler), {@link
 * io.tributary.broker.quota.ControllerMutationQuota} ({@code controller_mutation_rate}: partitions
 * created, added or deleted, in a {@link io.tributary.broker.quota.TokenBucket}; strict versions
 * refuse topics with THROTTLING_QUOTA_EXCEEDED) and {@link
 * io.tributary.broker.quota.ConnectionRateQuota} ({@code connection_creation_rate}: new connections
 * per IP; one over is held by the listener, then closed).
 *
 * <p>Invariants: a client with no quota is never measured nor throttled; clients that share a quota
 * entity (all client ids of a user with a user quota) share one rate; replica fetches are never
 * throttled; a refused connection or topic is not counted; every kept state is bounded by {@code
 * max-tracked-clients}. No Spring here: the clock comes through the constructor.
 */
package io.tributary.broker.quota;
