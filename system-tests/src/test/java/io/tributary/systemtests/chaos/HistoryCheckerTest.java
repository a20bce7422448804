package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.systemtests.chaos.HistoryChecker.Kind;
import io.tributary.systemtests.chaos.HistoryChecker.Report;
import io.tributary.systemtests.chaos.Operation.Phase;
import io.tributary.systemtests.chaos.Operation.Type;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One hand-made history per anomaly, which the checker must flag, and clean ones it must pass. */
class HistoryCheckerTest {

    /** Builds a history with a logical clock (one tick per event). */
    private static final class History {
        final List<Operation> events = new ArrayList<>();
        long clock;

        History send(String process, String value, int partition, long offset) {
            invoke(process, value);
            return complete(process, value, Phase.OK, partition, offset, null);
        }

        History invoke(String process, String value) {
            events.add(new Operation(process, Type.SEND, Phase.INVOKE, -1, -1, value, -1, clock++, null));
            return this;
        }

        History complete(String process, String value, Phase phase, int partition, long offset, String error) {
            events.add(new Operation(process, Type.SEND, phase, partition, offset, value, -1, clock++, error));
            return this;
        }

        History seek(String process, int partition, long offset) {
            events.add(Operation.ok(process, Type.SEEK, partition, offset, null, -1, clock++));
            return this;
        }

        History read(String process, int partition, long offset, String value) {
            events.add(Operation.ok(process, Type.READ, partition, offset, value, 0, clock++));
            return this;
        }

        History finalRead(int partition, long offset, String value) {
            events.add(Operation.ok("final", Type.FINAL_READ, partition, offset, value, 0, clock++));
            return this;
        }

        History end(int partition, long offset) {
            events.add(Operation.ok("final", Type.END, partition, offset, null, -1, clock++));
            return this;
        }

        History leader(int partition, int epoch, int broker) {
            events.add(Operation.ok("nemesis", Type.LEADER, partition, -1, Integer.toString(broker), epoch, clock++));
            return this;
        }

        /** Two acknowledged sends on partition 0 and their final read. */
        static History clean() {
            return new History()
                    .send("p0", "p0-0", 0, 0)
                    .send("p0", "p0-1", 0, 1)
                    .seek("c0", 0, 0)
                    .read("c0", 0, 0, "p0-0")
                    .read("c0", 0, 1, "p0-1")
                    .leader(0, 0, 1)
                    .leader(0, 1, 2)
                    .seek("final", 0, 0)
                    .finalRead(0, 0, "p0-0")
                    .finalRead(0, 1, "p0-1")
                    .end(0, 2);
        }

        Report check() {
            return HistoryChecker.check(events);
        }
    }

    @Test
    void aCleanHistoryPasses() {
        Report report = History.clean().check();

        assertThat(report.anomalies()).isEmpty();
        assertThat(report.valid()).isTrue();
        assertThat(report.sends()).isEqualTo(2);
        assertThat(report.acknowledged()).isEqualTo(2);
        assertThat(report.reads()).isEqualTo(2);
        assertThat(report.finalReads()).isEqualTo(2);
        assertThat(report.lost()).isZero();
        assertThat(report.duplicates()).isZero();
    }

    @Test
    void unknownAndFailedSendsThatAreNotReadAndLeaveNoHoleAreClean() {
        History history = History.clean();
        history.invoke("p1", "p1-0").complete("p1", "p1-0", Phase.UNKNOWN, -1, -1, "TimeoutException");
        history.invoke("p1", "p1-1").complete("p1", "p1-1", Phase.FAIL, -1, -1, "RecordTooLargeException");
        history.invoke("p1", "p1-2"); // never completed: unknown
        history.events.add(Operation.ok("nemesis", Type.FAULT, -1, -1, "kill broker-1", -1, history.clock++));

        Report report = history.check();

        assertThat(report.anomalies()).isEmpty();
        assertThat(report.unknown()).isEqualTo(2);
        assertThat(report.failed()).isEqualTo(1);
        assertThat(report.faults()).isEqualTo(1);
        assertThat(report.acknowledgedBy())
                .as("a producer with only failed and unknown sends acknowledged nothing")
                .containsExactly(Map.entry("p0", 2));
    }

    @Test
    void theWorkOfEachProducerAndConsumerIsCountedOnItsOwn() {
        History history = History.clean();
        history.send("p1", "p1-0", 0, 2).seek("c1", 0, 2).read("c1", 0, 2, "p1-0");
        history.finalRead(0, 2, "p1-0");
        history.events.removeIf(o -> o.type() == Type.END);
        history.end(0, 3);

        Report report = history.check();

        assertThat(report.anomalies()).isEmpty();
        assertThat(report.acknowledgedBy()).isEqualTo(Map.of("p0", 2, "p1", 1));
        assertThat(report.readBy()).as("final reads not counted").isEqualTo(Map.of("c0", 2, "c1", 1));
        assertThat(report.summary()).contains("acknowledged per producer {p0=2, p1=1}; read per consumer {c0=2, c1=1}");
    }

    @Test
    void anUnknownSendThatWasWrittenIsClean() {
        History history = History.clean();
        history.invoke("p1", "p1-0").complete("p1", "p1-0", Phase.UNKNOWN, -1, -1, "TimeoutException");
        history.finalRead(0, 2, "p1-0");
        history.events.removeIf(o -> o.type() == Type.END);
        history.end(0, 3);

        assertThat(history.check().anomalies()).isEmpty();
    }

    @Test
    void aLostAcknowledgedWriteIsFlagged() {
        History history = new History()
                .send("p0", "p0-0", 0, 0)
                .send("p0", "p0-1", 0, 1)
                .seek("final", 0, 0)
                .finalRead(0, 0, "p0-0")
                .end(0, 1);

        Report report = history.check();

        assertThat(report.lost()).isEqualTo(1);
        assertThat(report.count(Kind.LOST)).isEqualTo(1);
        assertThat(report.anomalies())
                .singleElement()
                .hasToString(
                        "LOST: p0-1 acknowledged at 0@1 (t=3 ms) is not in the final read".replace("t=3 ms", "t=0 ms"));
    }

    @Test
    void anAcknowledgedWriteAtAnotherOffsetIsFlagged() {
        History history = new History()
                .send("p0", "p0-0", 0, 0)
                .send("p0", "p0-1", 0, 5)
                .seek("final", 0, 0)
                .finalRead(0, 0, "p0-0")
                .finalRead(0, 1, "p0-1")
                .end(0, 2);

        assertThat(history.check().anomalies()).extracting(a -> a.kind()).containsExactly(Kind.MISPLACED);
    }

    @Test
    void aDuplicateIsFlagged() {
        History history = new History()
                .send("p0", "p0-0", 0, 0)
                .seek("final", 0, 0)
                .finalRead(0, 0, "p0-0")
                .finalRead(0, 1, "p0-0")
                .end(0, 2);

        Report report = history.check();

        assertThat(report.duplicates()).isEqualTo(1);
        assertThat(report.anomalies()).extracting(a -> a.kind()).containsExactly(Kind.DUPLICATE);
    }

    @Test
    void twoValuesAtOneOffsetAcrossReadsAreFlagged() {
        // A consumer read p0-1 at 0@1 during the run (from a leader later truncated); the final log
        // has p0-2 there.
        History history = new History()
                .send("p0", "p0-0", 0, 0)
                .invoke("p0", "p0-1")
                .complete("p0", "p0-1", Phase.UNKNOWN, -1, -1, "TimeoutException")
                .send("p0", "p0-2", 0, 1)
                .seek("c0", 0, 0)
                .read("c0", 0, 0, "p0-0")
                .read("c0", 0, 1, "p0-1")
                .seek("final", 0, 0)
                .finalRead(0, 0, "p0-0")
                .finalRead(0, 1, "p0-2")
                .end(0, 2);

        assertThat(history.check().anomalies()).extracting(a -> a.kind()).containsExactly(Kind.CONFLICT);
    }

    @Test
    void aValueReadWhoseSendDefinitelyFailedIsFlagged() {
        History history = new History()
                .send("p0", "p0-0", 0, 0)
                .invoke("p0", "p0-1")
                .complete("p0", "p0-1", Phase.FAIL, -1, -1, "RecordTooLargeException")
                .seek("final", 0, 0)
                .finalRead(0, 0, "p0-0")
                .finalRead(0, 1, "p0-1")
                .end(0, 2);

        assertThat(history.check().anomalies()).extracting(a -> a.kind()).containsExactly(Kind.FAILED_BUT_READ);
    }

    @Test
    void aValueNoOneSentIsFlagged() {
        History history = new History()
                .send("p0", "p0-0", 0, 0)
                .seek("final", 0, 0)
                .finalRead(0, 0, "p0-0")
                .finalRead(0, 1, "ghost")
                .end(0, 2);

        assertThat(history.check().anomalies()).extracting(a -> a.kind()).containsExactly(Kind.PHANTOM);
    }

    @Test
    void aHoleInTheFinalLogIsFlagged() {
        // The final reader did not read offset 1 (it has no seek record, so the skip rule is not
        // what flags it); the partition's end is 3.
        History history = new History()
                .send("p0", "p0-0", 0, 0)
                .send("p0", "p0-1", 0, 2)
                .finalRead(0, 0, "p0-0")
                .finalRead(0, 2, "p0-1")
                .end(0, 3);
        history.events.add(Operation.ok("final", Type.SEEK, 0, 0, null, -1, -1));
        // A seek recorded after the reads: the consumer rule only looks at the reads after a seek.

        Report report = history.check();

        assertThat(report.anomalies()).extracting(a -> a.kind()).containsExactly(Kind.SKIP, Kind.HOLE);
        assertThat(report.anomalies().get(1).detail())
                .isEqualTo("partition 0: 1 offset(s) missing in [0, 3), the first 1");
    }

    @Test
    void aFinalReadThatStopsBeforeTheEndIsAHole() {
        History history = new History()
                .send("p0", "p0-0", 0, 0)
                .seek("final", 0, 0)
                .finalRead(0, 0, "p0-0")
                .end(0, 2);

        assertThat(history.check().anomalies()).extracting(a -> a.kind()).containsExactly(Kind.HOLE);
    }

    @Test
    void aConsumerSkippingIsFlagged() {
        History history = History.clean();
        history.send("p0", "p0-2", 0, 2);
        history.events.removeIf(o -> o.process().equals("final"));
        history.seek("c1", 0, 0).read("c1", 0, 0, "p0-0").read("c1", 0, 2, "p0-2");
        history.seek("final", 0, 0)
                .finalRead(0, 0, "p0-0")
                .finalRead(0, 1, "p0-1")
                .finalRead(0, 2, "p0-2")
                .end(0, 3);

        Report report = history.check();

        assertThat(report.anomalies()).extracting(a -> a.kind()).containsExactly(Kind.SKIP);
        assertThat(report.anomalies().getFirst().detail()).isEqualTo("c1 read 0@2 after 0@0 (skipped 1)");
    }

    @Test
    void aConsumerGoingBackwardsIsFlaggedButNotAfterAnExplicitSeek() {
        History backwards = History.clean();
        backwards.read("c0", 0, 0, "p0-0");
        assertThat(backwards.check().anomalies()).extracting(a -> a.kind()).containsExactly(Kind.BACKWARDS);

        History seeked = History.clean();
        seeked.seek("c0", 0, 0).read("c0", 0, 0, "p0-0").read("c0", 0, 1, "p0-1");
        assertThat(seeked.check().anomalies()).isEmpty();
    }

    @Test
    void twoLeadersInOneEpochAreFlagged() {
        History history = History.clean().leader(0, 1, 3).leader(0, 1, 2).leader(0, -1, 0);

        Report report = history.check();

        assertThat(report.anomalies()).extracting(a -> a.kind()).containsExactly(Kind.TWO_LEADERS);
        assertThat(report.anomalies().getFirst().detail()).isEqualTo("partition 0 epoch 1 led by brokers [2, 3]");
    }

    @Test
    void theUnavailabilityWindowIsTheLongestIntervalWithoutAnAck() {
        List<Operation> events = List.of(
                new Operation("p0", Type.SEND, Phase.INVOKE, -1, -1, "p0-0", -1, 1_000_000, null),
                new Operation("p0", Type.SEND, Phase.OK, 0, 0, "p0-0", -1, 2_000_000, null),
                new Operation("p0", Type.SEND, Phase.INVOKE, -1, -1, "p0-1", -1, 3_000_000, null),
                new Operation("p0", Type.SEND, Phase.OK, 0, 1, "p0-1", -1, 900_000_000, null),
                Operation.ok("final", Type.FINAL_READ, 0, 0, "p0-0", 0, 901_000_000),
                Operation.ok("final", Type.FINAL_READ, 0, 1, "p0-1", 0, 902_000_000));

        assertThat(HistoryChecker.check(events).longestWithoutAck()).isEqualTo(Duration.ofMillis(898));
    }

    @Test
    void aHistoryFileRoundTripsAndFeedsTheChecker(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("history.jsonl");
        History history = History.clean();
        history.invoke("p\"1", "odd \\ value\n\u0001")
                .complete("p\"1", "odd \\ value\n\u0001", Phase.UNKNOWN, -1, -1, null);
        try (var writer = new HistoryWriter(file)) {
            history.events.forEach(writer::append);
            assertThat(writer.events()).isEqualTo(history.events);
        }
        // A line cut by a crash at the end is ignored.
        java.nio.file.Files.writeString(file, "{\"process\":\"p0\",\"ty", java.nio.file.StandardOpenOption.APPEND);

        List<Operation> read = HistoryReader.read(file);

        assertThat(read).isEqualTo(history.events);
        assertThat(HistoryChecker.check(read).valid()).isTrue();
    }
}
