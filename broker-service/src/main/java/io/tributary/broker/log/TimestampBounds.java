package io.tributary.broker.log;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * How far a producer's record timestamps may stray from the broker's clock in a {@code CreateTime}
 * topic: Kafka's {@code message.timestamp.before.max.ms} and {@code message.timestamp.after.max.ms}
 * (KIP-937). A leader refuses a batch holding a record whose timestamp is more than {@code
 * maxBefore} earlier, or more than {@code maxAfter} later, than its clock at the append ({@code
 * INVALID_TIMESTAMP}, with an error per such record). A {@code LogAppendTime} topic ignores both,
 * and so does a record without a timestamp (-1).
 *
 * <table>
 *   <caption>Fields, Kafka keys and defaults (Kafka 4)</caption>
 *   <tr><th>field</th><th>Kafka key</th><th>default</th></tr>
 *   <tr><td>{@code maxBefore}</td><td>{@code message.timestamp.before.max.ms}</td><td>unlimited
 *       (Kafka's 2^63-1)</td></tr>
 *   <tr><td>{@code maxAfter}</td><td>{@code message.timestamp.after.max.ms}</td><td>1 hour
 *       (3600000)</td></tr>
 * </table>
 *
 * @param maxBefore the most a record's timestamp may lie before the broker's clock; empty: no bound
 * @param maxAfter the most a record's timestamp may lie after the broker's clock; empty: no bound
 */
public record TimestampBounds(Optional<Duration> maxBefore, Optional<Duration> maxAfter) {

    /** Kafka 4's {@code message.timestamp.after.max.ms} default (KIP-1030). */
    public static final Duration DEFAULT_MAX_AFTER = Duration.ofHours(1);

    public TimestampBounds {
        Objects.requireNonNull(maxBefore, "maxBefore");
        Objects.requireNonNull(maxAfter, "maxAfter");
        maxBefore.ifPresent(d -> requireNotNegative(d, "message.timestamp.before.max.ms"));
        maxAfter.ifPresent(d -> requireNotNegative(d, "message.timestamp.after.max.ms"));
    }

    /** Kafka's defaults: no bound before the broker's clock, one hour after it. */
    public static TimestampBounds defaults() {
        return new TimestampBounds(Optional.empty(), Optional.of(DEFAULT_MAX_AFTER));
    }

    /** No bound either way (Kafka 3's defaults). */
    public static TimestampBounds unlimited() {
        return new TimestampBounds(Optional.empty(), Optional.empty());
    }

    public TimestampBounds withMaxBefore(Optional<Duration> value) {
        return new TimestampBounds(value, maxAfter);
    }

    public TimestampBounds withMaxAfter(Optional<Duration> value) {
        return new TimestampBounds(maxBefore, value);
    }

    /** Whether any timestamp can be refused (else records need not be read to check them). */
    public boolean bounds() {
        return maxBefore.isPresent() || maxAfter.isPresent();
    }

    /** {@code message.timestamp.before.max.ms} as Kafka writes it: 2^63-1 when unbounded. */
    public long maxBeforeMs() {
        return maxBefore.map(Duration::toMillis).orElse(Long.MAX_VALUE);
    }

    /** {@code message.timestamp.after.max.ms} as Kafka writes it: 2^63-1 when unbounded. */
    public long maxAfterMs() {
        return maxAfter.map(Duration::toMillis).orElse(Long.MAX_VALUE);
    }

    /**
     * Whether a record stamped {@code timestampMs} may be appended at {@code nowMs}. Kafka's rule:
     * the difference {@code now - timestamp} may be at most {@code maxBefore}, and its negation at
     * most {@code maxAfter}; a record without a timestamp (-1) always may.
     */
    public boolean accepts(long timestampMs, long nowMs) {
        if (timestampMs == RecordBatch.NO_TIMESTAMP) {
            return true;
        }
        long earlierByMs = nowMs - timestampMs;
        return earlierByMs <= maxBeforeMs() && -earlierByMs <= maxAfterMs();
    }

    /**
     * The per-record message of a refused timestamp, as Kafka words it (the range printed with
     * Kafka's arithmetic: an unbounded side shows {@code now ∓ (2^63-1)}, wrapped as Kafka's is).
     *
     * @param timestampMs the record's timestamp
     * @param offset the record's offset as the producer sent it (before the leader assigns offsets)
     * @param nowMs the broker's clock at the append
     */
    public String refusal(long timestampMs, long offset, long nowMs) {
        return "Timestamp " + timestampMs + " of message with offset " + offset
                + " is out of range. The timestamp should be within [" + (nowMs - maxBeforeMs()) + ", "
                + (nowMs + maxAfterMs()) + "]";
    }

    private static void requireNotNegative(Duration d, String key) {
        if (d.isNegative()) {
            throw new IllegalArgumentException(key + " must not be negative: " + d);
        }
    }
}
