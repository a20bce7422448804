package io.tributary.gateway.idempotency;

import java.time.Duration;

/** What a claim of an idempotency key leads to. */
public sealed interface Decision {

    /**
     * The claim owns the key: do the request, then record its result (or release the key).
     *
     * @param takeover whether an earlier claim of the same request was abandoned (no result within
     *     the claim timeout): its request may have been done too
     */
    record Execute(boolean takeover) implements Decision {}

    /** The same request was done: answer with its stored result. */
    record Replay(IdempotencyRecord.Result result) implements Decision {}

    /** The same request is being done by an earlier claim; retry after {@code retryAfter}. */
    record InProgress(Duration retryAfter) implements Decision {}

    /** The key belongs to another request (another method, path, query, headers or body). */
    record Reused() implements Decision {}
}
