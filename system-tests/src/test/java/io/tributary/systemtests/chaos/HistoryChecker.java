package io.tributary.systemtests.chaos;

import io.tributary.systemtests.chaos.Operation.Phase;
import io.tributary.systemtests.chaos.Operation.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a history ({@link Operation}s in the order they were recorded) for the anomalies a
 * replicated log must never show. Pure: no I/O, no clock.
 *
 * <p>The rules:
 *
 * <ul>
 *   <li><b>lost</b>: a send completed OK whose value is not in the final read;
 *   <li><b>misplaced</b>: a send completed OK at (partition, offset) whose value the final read has
 *       elsewhere;
 *   <li><b>duplicate</b>: one value read (during the run or finally) at two different positions;
 *   <li><b>conflict</b>: two different values read at one (partition, offset), across all reads;
 *   <li><b>failed-but-read</b>: a value read whose send definitely failed ({@link Phase#FAIL}: the
 *       driver gives FAIL only for errors raised before the record left the client; anything else
 *       is {@link Phase#UNKNOWN}, which may or may not be read);
 *   <li><b>phantom</b>: a value read that no one sent;
 *   <li><b>hole</b>: in the final log of a partition, from the final reader's seek offset to the
 *       {@link Type#END} offset, a missing offset. Without transactions (no control batches) and
 *       without compaction or deletion, every offset holds one record: an idempotent producer's
 *       failed or retried batch never takes offsets, so a failed or unknown send leaves no hole;
 *   <li><b>skip / backwards</b>: per consumer and partition, each read's offset must be the
 *       previous read's plus one, or the offset of the latest explicit {@link Type#SEEK};
 *   <li><b>two leaders</b>: two different leaders observed ({@link Type#LEADER}) for one partition
 *       in one leader epoch (observations with an unknown epoch, -1, are ignored).
 * </ul>
 */
public final class HistoryChecker {

    /** The kinds of anomaly. */
    public enum Kind {
        LOST,
        MISPLACED,
        DUPLICATE,
        CONFLICT,
        FAILED_BUT_READ,
        PHANTOM,
        HOLE,
        SKIP,
        BACKWARDS,
        TWO_LEADERS
    }

    /** One anomaly, with what shows it. */
    public record Anomaly(Kind kind, String detail) {
        @Override
        public String toString() {
            return kind + ": " + detail;
        }
    }

    /**
     * The figures of a run and its anomalies.
     *
     * @param longestWithoutAck the longest interval, between the first send's invocation and the
     *     last acknowledgement, with no send acknowledged: the unavailability window
     * @param acknowledgedBy acknowledged sends per producer process (a producer with none is absent)
     * @param readBy records read during the run per consumer process (the final read not counted; a
     *     consumer with none is absent)
     */
    public record Report(
            int sends,
            int acknowledged,
            int failed,
            int unknown,
            int reads,
            int finalReads,
            int faults,
            int lost,
            int duplicates,
            Duration longestWithoutAck,
            Map<String, Integer> acknowledgedBy,
            Map<String, Integer> readBy,
            List<Anomaly> anomalies) {

        public Report {
            acknowledgedBy = Map.copyOf(acknowledgedBy);
            readBy = Map.copyOf(readBy);
            anomalies = List.copyOf(anomalies);
        }

        public boolean valid() {
            return anomalies.isEmpty();
        }

        public long count(Kind kind) {
            return anomalies.stream().filter(a -> a.kind() == kind).count();
        }

        public String summary() {
            return ("operations: %d sends (%d acknowledged, %d failed, %d unknown), %d reads, %d final reads, %d faults;"
                            + " acknowledged writes lost: %d; duplicates: %d; unavailability window (longest without an ack): %d ms;"
                            + " acknowledged per producer %s; read per consumer %s; anomalies: %d%s")
                    .formatted(
                            sends,
                            acknowledged,
                            failed,
                            unknown,
                            reads,
                            finalReads,
                            faults,
                            lost,
                            duplicates,
                            longestWithoutAck.toMillis(),
                            new TreeMap<>(acknowledgedBy),
                            new TreeMap<>(readBy),
                            anomalies.size(),
                            anomalies.isEmpty()
                                    ? ""
                                    : "\n  "
                                            + String.join(
                                                    "\n  ",
                                                    anomalies.stream()
                                                            .limit(50)
                                                            .map(Anomaly::toString)
                                                            .toList()));
        }
    }

    private record Position(int partition, long offset) {
        @Override
        public String toString() {
            return partition + "@" + offset;
        }
    }

    private HistoryChecker() {}

    public static Report check(List<Operation> history) {
        List<Anomaly> anomalies = new ArrayList<>();

        // Sends: the last completion of each value (the invocation alone means unknown).
        Map<String, Operation> sendInvoked = new LinkedHashMap<>();
        Map<String, Operation> sendCompleted = new HashMap<>();
        List<Long> ackTimes = new ArrayList<>();
        int faults = 0;
        for (Operation o : history) {
            if (o.type() == Type.FAULT) {
                faults++;
            }
            if (o.type() != Type.SEND) {
                continue;
            }
            if (o.phase() == Phase.INVOKE) {
                sendInvoked.put(o.value(), o);
            } else {
                sendCompleted.put(o.value(), o);
                if (o.phase() == Phase.OK) {
                    ackTimes.add(o.nanos());
                }
            }
        }

        // Every read, during the run and final: values per position, positions per value.
        Map<Position, Set<String>> valuesAt = new TreeMap<>((a, b) -> a.partition() != b.partition()
                ? Integer.compare(a.partition(), b.partition())
                : Long.compare(a.offset(), b.offset()));
        Map<String, Set<Position>> positionsOf = new LinkedHashMap<>();
        Map<String, Position> finalPositionOf = new HashMap<>();
        int reads = 0;
        int finalReads = 0;
        Map<String, Integer> readBy = new HashMap<>();
        for (Operation o : history) {
            if (o.type() != Type.READ && o.type() != Type.FINAL_READ) {
                continue;
            }
            if (o.type() == Type.READ) {
                reads++;
                readBy.merge(o.process(), 1, Integer::sum);
            } else {
                finalReads++;
                finalPositionOf.putIfAbsent(o.value(), new Position(o.partition(), o.offset()));
            }
            var position = new Position(o.partition(), o.offset());
            valuesAt.computeIfAbsent(position, p -> new LinkedHashSet<>()).add(o.value());
            positionsOf.computeIfAbsent(o.value(), v -> new LinkedHashSet<>()).add(position);
        }
        valuesAt.forEach((position, values) -> {
            if (values.size() > 1) {
                anomalies.add(new Anomaly(Kind.CONFLICT, "values " + values + " read at " + position));
            }
        });
        int duplicates = 0;
        for (var entry : positionsOf.entrySet()) {
            String value = entry.getKey();
            if (entry.getValue().size() > 1) {
                duplicates++;
                anomalies.add(new Anomaly(Kind.DUPLICATE, value + " read at " + entry.getValue()));
            }
            Operation completion = sendCompleted.get(value);
            if (completion != null && completion.phase() == Phase.FAIL) {
                anomalies.add(new Anomaly(
                        Kind.FAILED_BUT_READ,
                        value + " read at " + entry.getValue() + " but its send failed: " + completion.error()));
            }
            if (!sendInvoked.containsKey(value)) {
                anomalies.add(new Anomaly(Kind.PHANTOM, value + " read at " + entry.getValue() + " was never sent"));
            }
        }

        // Acknowledged sends against the final log.
        int lost = 0;
        int acknowledged = 0;
        int failed = 0;
        int unknown = 0;
        Map<String, Integer> acknowledgedBy = new HashMap<>();
        for (String value : sendInvoked.keySet()) {
            Operation completion = sendCompleted.get(value);
            Phase phase = completion == null ? Phase.UNKNOWN : completion.phase();
            switch (phase) {
                case OK -> {
                    acknowledged++;
                    acknowledgedBy.merge(completion.process(), 1, Integer::sum);
                }
                case FAIL -> failed++;
                default -> unknown++;
            }
            if (phase != Phase.OK) {
                continue;
            }
            Position finalPosition = finalPositionOf.get(value);
            var acked = new Position(completion.partition(), completion.offset());
            if (finalPosition == null) {
                lost++;
                anomalies.add(new Anomaly(
                        Kind.LOST,
                        value + " acknowledged at " + acked + " (t=" + completion.nanos() / 1_000_000
                                + " ms) is not in the final read"
                                + (valuesAt.containsKey(acked) ? "; " + acked + " holds " + valuesAt.get(acked) : "")));
            } else if (!finalPosition.equals(acked)) {
                anomalies.add(new Anomaly(
                        Kind.MISPLACED, value + " acknowledged at " + acked + " is at " + finalPosition + " finally"));
            }
        }

        checkConsumers(history, anomalies);
        checkFinalLog(history, anomalies);
        checkLeaders(history, anomalies);

        return new Report(
                sendInvoked.size(),
                acknowledged,
                failed,
                unknown,
                reads,
                finalReads,
                faults,
                lost,
                duplicates,
                longestWithoutAck(history, ackTimes),
                acknowledgedBy,
                readBy,
                anomalies);
    }

    /** Per consumer and partition: each read follows the previous one or the latest seek. */
    private static void checkConsumers(List<Operation> history, List<Anomaly> anomalies) {
        Map<String, Map<Integer, Long>> expected = new HashMap<>();
        for (Operation o : history) {
            if (o.type() == Type.SEEK) {
                expected.computeIfAbsent(o.process(), p -> new HashMap<>()).put(o.partition(), o.offset());
            } else if (o.type() == Type.READ || o.type() == Type.FINAL_READ) {
                Map<Integer, Long> next = expected.computeIfAbsent(o.process(), p -> new HashMap<>());
                Long want = next.get(o.partition());
                if (want != null && o.offset() > want) {
                    anomalies.add(new Anomaly(
                            Kind.SKIP,
                            o.process() + " read " + o.partition() + "@" + o.offset() + " after " + o.partition() + "@"
                                    + (want - 1) + " (skipped " + (o.offset() - want) + ")"));
                } else if (want != null && o.offset() < want) {
                    anomalies.add(new Anomaly(
                            Kind.BACKWARDS,
                            o.process() + " read " + o.partition() + "@" + o.offset() + " after " + o.partition() + "@"
                                    + (want - 1)));
                }
                next.put(o.partition(), o.offset() + 1);
            }
        }
    }

    /** The final log of each partition: every offset from the final seek to the end holds a record. */
    private static void checkFinalLog(List<Operation> history, List<Anomaly> anomalies) {
        Map<String, Boolean> finalProcesses = new HashMap<>();
        for (Operation o : history) {
            if (o.type() == Type.FINAL_READ || o.type() == Type.END) {
                finalProcesses.put(o.process(), true);
            }
        }
        Map<Integer, Long> start = new TreeMap<>();
        Map<Integer, Long> end = new TreeMap<>();
        Map<Integer, Set<Long>> offsets = new TreeMap<>();
        for (Operation o : history) {
            if (!finalProcesses.containsKey(o.process())) {
                continue;
            }
            switch (o.type()) {
                case SEEK -> start.put(o.partition(), o.offset());
                case END -> end.put(o.partition(), o.offset());
                case FINAL_READ ->
                    offsets.computeIfAbsent(o.partition(), p -> new java.util.TreeSet<>())
                            .add(o.offset());
                default -> {}
            }
        }
        Set<Integer> partitions = new java.util.TreeSet<>(offsets.keySet());
        partitions.addAll(end.keySet());
        for (int partition : partitions) {
            Set<Long> present = offsets.getOrDefault(partition, Set.of());
            long from = start.getOrDefault(
                    partition, present.isEmpty() ? 0L : present.iterator().next());
            long to = end.getOrDefault(
                    partition, present.stream().mapToLong(l -> l + 1).max().orElse(from));
            long missing = 0;
            long firstMissing = -1;
            for (long offset = from; offset < to; offset++) {
                if (!present.contains(offset)) {
                    if (missing++ == 0) {
                        firstMissing = offset;
                    }
                }
            }
            if (missing > 0) {
                anomalies.add(new Anomaly(
                        Kind.HOLE,
                        "partition " + partition + ": " + missing + " offset(s) missing in [" + from + ", " + to
                                + "), the first " + firstMissing));
            }
        }
    }

    private static void checkLeaders(List<Operation> history, List<Anomaly> anomalies) {
        Map<Position, Set<String>> leaders = new LinkedHashMap<>();
        for (Operation o : history) {
            if (o.type() == Type.LEADER && o.leaderEpoch() >= 0) {
                leaders.computeIfAbsent(new Position(o.partition(), o.leaderEpoch()), k -> new LinkedHashSet<>())
                        .add(o.value());
            }
        }
        leaders.forEach((key, who) -> {
            if (who.size() > 1) {
                anomalies.add(new Anomaly(
                        Kind.TWO_LEADERS,
                        "partition " + key.partition() + " epoch " + key.offset() + " led by brokers " + who));
            }
        });
    }

    private static Duration longestWithoutAck(List<Operation> history, List<Long> ackTimes) {
        long first = history.stream()
                .filter(o -> o.type() == Type.SEND && o.phase() == Phase.INVOKE)
                .mapToLong(Operation::nanos)
                .min()
                .orElse(0);
        long previous = first;
        long longest = 0;
        for (long t : ackTimes.stream().sorted().toList()) {
            longest = Math.max(longest, t - previous);
            previous = t;
        }
        return Duration.ofNanos(longest);
    }
}
