package io.tributary.systemtests.chaos;

import java.util.Objects;

/**
 * One event of a history: an operation's invocation or one of its completions.
 *
 * <p>A send is an {@link Phase#INVOKE} followed by one completion ({@link Phase#OK} with the
 * offset, {@link Phase#FAIL} when it definitely did not happen, {@link Phase#UNKNOWN} when it may
 * have). Reads, final reads, seeks and leader observations are single {@link Phase#OK} events.
 *
 * @param process the producer, consumer or observer that did it ({@code p0}, {@code c1}, {@code
 *     final}, {@code nemesis})
 * @param type what it is
 * @param phase invocation or completion
 * @param partition the partition, -1 when not known (a send's invocation)
 * @param offset the offset, -1 when not known
 * @param value the record value (sends and reads); for {@link Type#LEADER} the leader's broker id
 * @param leaderEpoch the leader epoch if known (a read record's batch epoch, an observed leader's
 *     epoch), -1 otherwise
 * @param nanos a monotonic clock ({@link System#nanoTime()}) relative to the history's start
 * @param error the error's class and message for FAIL and UNKNOWN, else null
 */
public record Operation(
        String process,
        Type type,
        Phase phase,
        int partition,
        long offset,
        String value,
        int leaderEpoch,
        long nanos,
        String error) {

    /** The kinds of operation. */
    public enum Type {
        /** A producer's send of one value. */
        SEND,
        /** A record read by a consumer during the run. */
        READ,
        /** An explicit seek of a consumer to {@code offset}: the next read may start there. */
        SEEK,
        /** A record of the full read after the run, up to the end offsets. */
        FINAL_READ,
        /** An observation: {@code value} led {@code partition} in {@code leaderEpoch}. */
        LEADER,
        /**
         * The end offset (high watermark) of {@code partition} that the final read read up to: the
         * final log is {@code [its seek offset, offset)}.
         */
        END,
        /** A fault injected (value says what, e.g. "kill broker-1"), for the figures. */
        FAULT
    }

    /** Invocation or completion. */
    public enum Phase {
        INVOKE,
        OK,
        FAIL,
        UNKNOWN
    }

    public Operation {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(phase, "phase");
    }

    /** A completed event of {@code type} (reads, seeks, observations). */
    public static Operation ok(
            String process, Type type, int partition, long offset, String value, int epoch, long nanos) {
        return new Operation(process, type, Phase.OK, partition, offset, value, epoch, nanos, null);
    }
}
