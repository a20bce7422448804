package io.tributary.gateway.idempotency;

import java.time.Duration;
import java.util.Optional;

/**
 * The state of one scoped key, folded from its records in log order: which claim owns the key (the
 * <em>winner</em>) and, once known, its result. Every replica folds the same records with the same
 * rule, using only what is in the records (offsets, Kafka timestamps, digests), so every replica
 * decides the same for every claim: the log is the one order of all claims of a key.
 *
 * <p>The rule for a claim at timestamp {@code t} with digest {@code d}, given the winner {@code w}:
 *
 * <ol>
 *   <li>no winner, or {@code t - w.timestamp >= ttl} (the key expired): the claim wins ({@link
 *       Decision.Execute});
 *   <li>{@code d != w.digest}: {@link Decision.Reused} (422);
 *   <li>the winner has a result: {@link Decision.Replay};
 *   <li>no result and {@code t - w.timestamp < claimTimeout}: {@link Decision.InProgress}, retry
 *       after the rest of the claim timeout;
 *   <li>no result for {@code claimTimeout}: the claim takes over ({@link Decision.Execute} with
 *       {@code takeover}): the winner's replica is presumed dead, and whether it wrote the records
 *       is unknown.
 * </ol>
 *
 * A {@code result} or {@code release} applies to the winner whose claim offset it names; one that
 * names a claim this fold has not made the winner proves that claim won (only winners write them):
 * when it names an offset below every claim this fold has seen (the reader started after it) or
 * above the winner's, it becomes the winner (with its result, or released). A release frees the key (a late one, of a claim taken over, does not).
 * Not thread-safe.
 */
final class KeyHistory {

    private final long ttlMs;
    private final long claimTimeoutMs;
    private long firstSeenOffset = Long.MAX_VALUE;
    private long winnerOffset = -1;
    private long winnerTimestampMs;
    private String winnerDigest;
    private IdempotencyRecord.Result result;

    KeyHistory(Duration ttl, Duration claimTimeout) {
        this.ttlMs = ttl.toMillis();
        this.claimTimeoutMs = claimTimeout.toMillis();
    }

    /** Applies a claim at {@code offset}; the decision for it. */
    Decision claim(long offset, long timestampMs, String digest) {
        firstSeenOffset = Math.min(firstSeenOffset, offset);
        Decision d = decide(timestampMs, digest);
        if (d instanceof Decision.Execute) {
            winnerOffset = offset;
            winnerTimestampMs = timestampMs;
            winnerDigest = digest;
            result = null;
        }
        return d;
    }

    private Decision decide(long timestampMs, String digest) {
        if (winnerOffset < 0 || timestampMs - winnerTimestampMs >= ttlMs) {
            return new Decision.Execute(false);
        }
        if (!winnerDigest.equals(digest)) {
            return new Decision.Reused();
        }
        if (result != null) {
            return new Decision.Replay(result);
        }
        long age = Math.max(0, timestampMs - winnerTimestampMs);
        if (age >= claimTimeoutMs) {
            return new Decision.Execute(true);
        }
        return new Decision.InProgress(Duration.ofMillis(claimTimeoutMs - age));
    }

    /** Applies a result record at {@code offset}. */
    void result(long offset, IdempotencyRecord.Result r) {
        firstSeenOffset = Math.min(firstSeenOffset, offset);
        if (r.claimOffset() == winnerOffset) {
            if (result == null) {
                result = r;
            }
        } else if (adopts(r.claimOffset())) {
            winnerOffset = r.claimOffset();
            winnerTimestampMs = r.claimTimestampMs();
            winnerDigest = r.requestSha256();
            result = r;
        }
    }

    /** Applies a release record at {@code offset}. */
    void release(long offset, IdempotencyRecord.Release r) {
        firstSeenOffset = Math.min(firstSeenOffset, offset);
        // only a winner writes a release, but a winner taken over may write it late: a release frees
        // the key only from its own claim, or from a claim before everything this fold saw
        if ((r.claimOffset() == winnerOffset && result == null) || r.claimOffset() < firstSeenOffset) {
            winnerOffset = -1;
            winnerDigest = null;
            result = null;
        }
    }

    /** Whether a result naming the claim at {@code claimOffset} proves a winner this fold missed. */
    private boolean adopts(long claimOffset) {
        return claimOffset < firstSeenOffset || claimOffset > winnerOffset;
    }

    /** The winner's Kafka timestamp, when there is a winner: the key lives until it plus the TTL. */
    Optional<Long> winnerTimestampMs() {
        return winnerOffset < 0 ? Optional.empty() : Optional.of(winnerTimestampMs);
    }

    /** The stored body's length, for the cache's byte bound. */
    long storedBytes() {
        return result == null ? 0 : result.body().map(b -> (long) b.length).orElse(0L);
    }
}
