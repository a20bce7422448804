package io.tributary.systemtests.bench;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the members of one of {@link GroupBench}'s groups reported ({@link GroupBenchMember}'s event
 * lines), and the figures read from it: when the partitions were settled among the live members,
 * the longest gap in a member's deliveries, the records delivered twice. Times are {@code
 * System.nanoTime()} values of the host's one monotonic clock. Besides the members' events, the
 * bench adds its own as member {@value #BENCH}: {@code K t} (it SIGKILLed a process) and {@code N t}
 * (a new coordinator leader was seen). Thread-safe: the readers of every
 * member add to it while the bench reads it.
 */
final class GroupTimeline {

    /** One event line of a member: {@code kind} is the line's letter, the other fields as it has them. */
    record Event(
            String member,
            char kind,
            long nanos,
            int generation,
            Set<Integer> partitions,
            long[] numbers,
            String line) {
        Event {
            partitions = Set.copyOf(partitions);
            numbers = numbers.clone();
        }

        boolean isCallback() {
            return kind == 'A' || kind == 'R' || kind == 'L';
        }

        /** A callback that moved a partition: an assignment, revocation or loss of at least one. */
        boolean changesOwnership() {
            return isCallback() && !partitions.isEmpty();
        }
    }

    /** The member name of the bench's own events. */
    static final String BENCH = "bench";

    private final List<Event> events = new ArrayList<>();

    /** Parses one line (without the marker) of {@code member}'s output and adds it. */
    Event add(String member, String line) {
        Event event = parse(member, line);
        synchronized (events) {
            events.add(event);
        }
        return event;
    }

    static Event parse(String member, String line) {
        String[] f = line.strip().split(" ");
        char kind = f[0].charAt(0);
        long nanos = Long.parseLong(f[1]);
        return switch (kind) {
            case 'A', 'R', 'L' ->
                new Event(member, kind, nanos, Integer.parseInt(f[2]), partitions(f[3]), new long[0], line);
            case 'D' ->
                new Event(
                        member,
                        kind,
                        nanos,
                        -1,
                        Set.of(),
                        new long[] {
                            Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5])
                        },
                        line);
            case 'C', 'H', 'J' -> new Event(member, kind, nanos, -1, Set.of(), new long[] {Long.parseLong(f[2])}, line);
            case 'T', 'W', 'S', 'E', 'F', 'K', 'N' -> new Event(member, kind, nanos, -1, Set.of(), new long[0], line);
            default -> throw new IllegalArgumentException("unknown event line from " + member + ": " + line);
        };
    }

    private static Set<Integer> partitions(String text) {
        Set<Integer> set = new TreeSet<>();
        if (!text.equals("-")) {
            for (String p : text.split(",")) {
                set.add(Integer.valueOf(p));
            }
        }
        return set;
    }

    /** Every event so far, in time order (ties: in the order they were added). */
    List<Event> events() {
        List<Event> copy;
        synchronized (events) {
            copy = new ArrayList<>(events);
        }
        copy.sort(Comparator.comparingLong(Event::nanos));
        return copy;
    }

    /** {@code member}'s events of {@code kind}, in time order. */
    List<Event> events(String member, char kind) {
        return events().stream()
                .filter(e -> e.member().equals(member) && e.kind() == kind)
                .toList();
    }

    /** The partitions each member owns after every callback so far: assigned ones in, revoked and lost ones out. */
    Map<String, Set<Integer>> ownership() {
        Map<String, Set<Integer>> owned = new TreeMap<>();
        for (Event e : events()) {
            if (!e.isCallback()) {
                continue;
            }
            Set<Integer> set = owned.computeIfAbsent(e.member(), m -> new TreeSet<>());
            if (e.kind() == 'A') {
                set.addAll(e.partitions());
            } else {
                set.removeAll(e.partitions());
            }
        }
        return owned;
    }

    /**
     * Whether the {@code live} members' partitions are settled: each owns at least one, no two own
     * the same, and together they own all {@code partitionCount}.
     */
    boolean settled(Collection<String> live, int partitionCount) {
        Map<String, Set<Integer>> owned = ownership();
        Set<Integer> all = new TreeSet<>();
        int total = 0;
        for (String member : live) {
            Set<Integer> set = owned.getOrDefault(member, Set.of());
            if (set.isEmpty()) {
                return false;
            }
            all.addAll(set);
            total += set.size();
        }
        return total == partitionCount && all.size() == partitionCount;
    }

    /** The time of the latest event of a kind in {@code kinds} after {@code after}, if any. */
    OptionalLong lastAfter(long after, String kinds) {
        return events().stream()
                .filter(e -> e.nanos() > after && kinds.indexOf(e.kind()) >= 0)
                .mapToLong(Event::nanos)
                .max();
    }

    /** The time of the latest callback that moved a partition after {@code after}, if any. */
    OptionalLong lastOwnershipChangeAfter(long after) {
        return events().stream()
                .filter(e -> e.nanos() > after && e.changesOwnership())
                .mapToLong(Event::nanos)
                .max();
    }

    /** The distinct generations the assignment callbacks after {@code after} were in. */
    Set<Integer> generationsAfter(long after) {
        Set<Integer> generations = new TreeSet<>();
        for (Event e : events()) {
            if (e.nanos() > after && e.kind() == 'A') {
                generations.add(e.generation());
            }
        }
        return generations;
    }

    /**
     * When the first of {@code members} learnt of a rebalance after {@code after}: for each, its
     * first JoinGroup answered after {@code after} ({@code J}) and the last heartbeat answered
     * before it ({@code H}: the one answered REBALANCE_IN_PROGRESS, since a classic member rejoins
     * on that answer and sends no heartbeat while it joins); the earliest such heartbeat after
     * {@code after}, if any member has one.
     */
    OptionalLong noticedAfter(Collection<String> members, long after) {
        long earliest = Long.MAX_VALUE;
        for (String member : members) {
            OptionalLong joined = events(member, 'J').stream()
                    .mapToLong(Event::nanos)
                    .filter(t -> t > after)
                    .min();
            if (joined.isEmpty()) {
                continue;
            }
            OptionalLong heartbeat = events(member, 'H').stream()
                    .mapToLong(Event::nanos)
                    .filter(t -> t > after && t <= joined.getAsLong())
                    .max();
            if (heartbeat.isPresent()) {
                earliest = Math.min(earliest, heartbeat.getAsLong());
            }
        }
        return earliest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(earliest);
    }

    /** How many events of a kind in {@code kinds} came after {@code after}. */
    long countAfter(long after, String kinds) {
        return events().stream()
                .filter(e -> e.nanos() > after && kinds.indexOf(e.kind()) >= 0)
                .count();
    }

    /**
     * The longest time between two consecutive deliveries ({@code D}) of {@code member} whose later
     * one is in {@code (from, to]}, in nanoseconds; 0 with no such pair.
     */
    long longestGap(String member, long from, long to) {
        long previous = Long.MIN_VALUE;
        long longest = 0;
        for (Event e : events(member, 'D')) {
            if (previous != Long.MIN_VALUE && e.nanos() > from && e.nanos() <= to) {
                longest = Math.max(longest, e.nanos() - previous);
            }
            previous = e.nanos();
        }
        return longest;
    }

    /** Records delivered, by every member together, counting each delivery. */
    long delivered() {
        return events().stream()
                .filter(e -> e.kind() == 'D')
                .mapToLong(e -> e.numbers()[3])
                .sum();
    }

    /** Records delivered, each (partition, offset) counted once. */
    long deliveredOnce() {
        Map<Integer, BitSet> seen = new HashMap<>();
        for (Event e : events()) {
            if (e.kind() == 'D') {
                long[] n = e.numbers();
                seen.computeIfAbsent((int) n[0], p -> new BitSet())
                        .set(Math.toIntExact(n[1]), Math.toIntExact(n[2] + 1));
            }
        }
        return seen.values().stream().mapToLong(BitSet::cardinality).sum();
    }

    /** When {@code member} last delivered a record, if it did. */
    OptionalLong lastDelivery(String member) {
        return events(member, 'D').stream().mapToLong(Event::nanos).max();
    }
}
