package io.tributary.systemtests.kafka;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the members of one consumer group saw, in one order: every rebalance callback, every
 * delivered record, every commit, and the crash of a member, appended by the members' threads (and
 * by the readers of child processes' output) to a single synchronized log. Events of one member are
 * in its own order; across members the order is the log's, and a member's callback is in the log
 * before the callback returns (before the member can acknowledge a revocation to the coordinator),
 * so "B was assigned p after A gave p up" is visible as log order.
 *
 * <p>The checks walk the whole log and return every violation found (empty when all is well):
 *
 * <ul>
 *   <li>{@link #ownershipViolations()}: a partition is assigned to a member only when no other
 *       member owns it (its previous owner revoked or lost it, or crashed), and a member delivers
 *       records only of partitions it owns;
 *   <li>{@link #redeliveryViolations()}: no record below a committed offset of its partition is
 *       delivered again (to anyone), and a record is delivered twice only where that is allowed:
 *       in a partition its crashed owner held or after a failed commit of that partition;
 *   <li>{@link #commitRegressions()}: no successful commit of a partition is lower than one before
 *       it (by anyone): what was committed never goes back.
 * </ul>
 *
 * <p>Partitions are those of the scenario's single topic, by index. Thread-safe: every method
 * holds the log's lock.
 */
final class GroupHistory {

    /** One thing a member did or that happened to it. */
    sealed interface Event {
        String member();
    }

    record Assigned(String member, Set<Integer> partitions) implements Event {}

    record Revoked(String member, Set<Integer> partitions) implements Event {}

    record Lost(String member, Set<Integer> partitions) implements Event {}

    /** A record returned by {@code poll} to the member, before it is processed and committed. */
    record Delivered(String member, int partition, long offset, long value) implements Event {}

    /** {@code commitSync} returned: these next offsets are committed. */
    record Committed(String member, Map<Integer, Long> offsets) implements Event {}

    /** {@code commitSync} threw: these offsets may not be committed. */
    record CommitFailed(String member, Map<Integer, Long> offsets, String error) implements Event {}

    /** The member's process is dead (SIGKILL, exit seen): it owns nothing any more. */
    record Crashed(String member) implements Event {}

    private final List<Event> events = new ArrayList<>();

    synchronized void add(Event event) {
        events.add(event);
    }

    /** How many events are in the log: a position to look at what happened after. */
    synchronized int size() {
        return events.size();
    }

    synchronized List<Event> snapshot() {
        return List.copyOf(events);
    }

    /** Each partition's current owner by the callbacks so far; unowned partitions are absent. */
    synchronized Map<Integer, String> owners() {
        Map<Integer, String> owners = new TreeMap<>();
        for (Event event : events) {
            switch (event) {
                case Assigned a -> a.partitions().forEach(p -> owners.put(p, a.member()));
                case Revoked r -> r.partitions().forEach(p -> owners.remove(p, r.member()));
                case Lost l -> l.partitions().forEach(p -> owners.remove(p, l.member()));
                case Crashed c -> owners.values().removeIf(c.member()::equals);
                default -> {}
            }
        }
        return owners;
    }

    /** The partitions {@code member} owns now. */
    synchronized Set<Integer> ownedBy(String member) {
        Set<Integer> owned = new TreeSet<>();
        owners().forEach((p, m) -> {
            if (m.equals(member)) {
                owned.add(p);
            }
        });
        return owned;
    }

    /** Members assigned any of {@code partitions} by events at or after log position {@code from}. */
    synchronized Set<String> assignedSince(int from, Set<Integer> partitions) {
        Set<String> members = new TreeSet<>();
        for (Event event : events.subList(from, events.size())) {
            if (event instanceof Assigned a && a.partitions().stream().anyMatch(partitions::contains)) {
                members.add(a.member());
            }
        }
        return members;
    }

    /** Every (partition, offset) delivered at least once. */
    synchronized Map<Integer, Set<Long>> deliveredOffsets() {
        Map<Integer, Set<Long>> delivered = new TreeMap<>();
        for (Event event : events) {
            if (event instanceof Delivered d) {
                delivered.computeIfAbsent(d.partition(), p -> new HashSet<>()).add(d.offset());
            }
        }
        return delivered;
    }

    /** Every value delivered at least once. */
    synchronized Set<Long> deliveredValues() {
        Set<Long> values = new HashSet<>();
        for (Event event : events) {
            if (event instanceof Delivered d) {
                values.add(d.value());
            }
        }
        return values;
    }

    /** Assignments of an owned partition to another member, and deliveries of unowned partitions. */
    synchronized List<String> ownershipViolations() {
        List<String> violations = new ArrayList<>();
        Map<Integer, String> owners = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            Event event = events.get(i);
            switch (event) {
                case Assigned a -> {
                    for (int p : a.partitions()) {
                        String owner = owners.get(p);
                        if (owner != null && !owner.equals(a.member())) {
                            violations.add("#" + i + ": partition " + p + " assigned to " + a.member() + " while "
                                    + owner + " still owns it");
                        }
                        owners.put(p, a.member());
                    }
                }
                case Revoked r -> r.partitions().forEach(p -> owners.remove(p, r.member()));
                case Lost l -> l.partitions().forEach(p -> owners.remove(p, l.member()));
                case Crashed c -> owners.values().removeIf(c.member()::equals);
                case Delivered d -> {
                    if (!d.member().equals(owners.get(d.partition()))) {
                        violations.add("#" + i + ": " + d.member() + " was given offset " + d.offset()
                                + " of partition " + d.partition() + " owned by " + owners.get(d.partition()));
                    }
                }
                default -> {}
            }
        }
        return violations;
    }

    /**
     * Records delivered again below their partition's committed offset, and records delivered
     * twice in a partition where no crash and no failed commit explains it.
     */
    synchronized List<String> redeliveryViolations() {
        List<String> violations = new ArrayList<>();
        Map<Integer, Long> committed = new HashMap<>();
        Map<Integer, Set<Long>> delivered = new HashMap<>();
        Map<Integer, String> owners = new HashMap<>();
        Set<Integer> mayRepeat = new HashSet<>();
        for (int i = 0; i < events.size(); i++) {
            Event event = events.get(i);
            switch (event) {
                case Assigned a -> a.partitions().forEach(p -> owners.put(p, a.member()));
                case Revoked r -> r.partitions().forEach(p -> owners.remove(p, r.member()));
                case Lost l ->
                    l.partitions().forEach(p -> {
                        owners.remove(p, l.member());
                        // A lost partition's uncommitted records are given to the next owner again.
                        mayRepeat.add(p);
                    });
                case Crashed c ->
                    owners.forEach((p, m) -> {
                        if (m.equals(c.member())) {
                            mayRepeat.add(p);
                        }
                    });
                case Committed c -> c.offsets().forEach((p, o) -> committed.merge(p, o, Math::max));
                case CommitFailed f -> mayRepeat.addAll(f.offsets().keySet());
                case Delivered d -> {
                    long floor = committed.getOrDefault(d.partition(), 0L);
                    if (d.offset() < floor) {
                        violations.add("#" + i + ": " + d.member() + " was given offset " + d.offset()
                                + " of partition " + d.partition() + " below its committed offset " + floor);
                    }
                    boolean first = delivered
                            .computeIfAbsent(d.partition(), p -> new HashSet<>())
                            .add(d.offset());
                    if (!first && !mayRepeat.contains(d.partition())) {
                        violations.add("#" + i + ": " + d.member() + " was given offset " + d.offset()
                                + " of partition " + d.partition()
                                + " again, with no crash, lost partition or failed commit to explain it");
                    }
                }
            }
        }
        return violations;
    }

    /** Successful commits of a partition lower than a successful commit of it before. */
    synchronized List<String> commitRegressions() {
        List<String> violations = new ArrayList<>();
        Map<Integer, Long> committed = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof Committed c) {
                for (Map.Entry<Integer, Long> commit : c.offsets().entrySet()) {
                    Long before = committed.get(commit.getKey());
                    if (before != null && commit.getValue() < before) {
                        violations.add("#" + i + ": " + c.member() + " committed " + commit.getValue()
                                + " for partition " + commit.getKey() + " after " + before + " was committed");
                    }
                    committed.merge(commit.getKey(), commit.getValue(), Math::max);
                }
            }
        }
        return violations;
    }

    /**
     * The deliveries of {@code partition} within 2 of {@code offset} and its commits within 3 of
     * it, by index: what a failure names about an offset never delivered.
     */
    synchronized String around(int partition, long offset) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < events.size(); i++) {
            Event event = events.get(i);
            boolean near = switch (event) {
                case Delivered d -> d.partition() == partition && Math.abs(d.offset() - offset) <= 2;
                case Committed c -> commitNear(c.offsets(), partition, offset);
                case CommitFailed c -> commitNear(c.offsets(), partition, offset);
                default -> false;
            };
            if (near) {
                out.append('#').append(i).append(' ').append(event).append('\n');
            }
        }
        return out.toString();
    }

    private static boolean commitNear(Map<Integer, Long> offsets, int partition, long offset) {
        Long committed = offsets.get(partition);
        return committed != null && Math.abs(committed - offset) <= 3;
    }

    /** The log without deliveries and successful commits, one event a line, for a failure message. */
    @Override
    public synchronized String toString() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < events.size(); i++) {
            if (!(events.get(i) instanceof Delivered || events.get(i) instanceof Committed)) {
                out.append('#').append(i).append(' ').append(events.get(i)).append('\n');
            }
        }
        return out.toString();
    }
}
