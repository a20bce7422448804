package io.tributary.systemtests.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * One classic consumer group of {@link GroupBench}: its members ({@link MemberProcess}, each a
 * {@link GroupBenchMember} in a JVM of its own), what they report ({@link GroupTimeline}), and the
 * waits the cases are made of. Used by the bench's main thread only.
 */
final class BenchGroup implements AutoCloseable {

    /** How often the waits look at the timeline. */
    private static final long LOOK_EVERY_MS = 10;

    final String id;
    final GroupTimeline timeline = new GroupTimeline();
    private final Map<String, String> options;
    private final int partitions;
    private final Duration quiet;
    private final Path logDir;
    private final Path log4j;
    private final Map<String, MemberProcess> members = new LinkedHashMap<>();

    /**
     * @param options the members' arguments but for their name (bootstrap, group, topic, assignor,
     *     timeouts, paused, commit)
     * @param partitions the topic's partitions, all of which a settled group owns
     * @param quiet how long no callback may come for the partitions to count as settled
     */
    BenchGroup(Map<String, String> options, int partitions, Duration quiet, Path logDir, Path log4j) {
        this.id = options.get("group");
        this.options = Map.copyOf(options);
        this.partitions = partitions;
        this.quiet = quiet;
        this.logDir = logDir;
        this.log4j = log4j;
    }

    MemberProcess start(String name) throws IOException {
        return start(name, Map.of());
    }

    /** Starts member {@code name} with {@code extra} arguments on top of the group's. */
    MemberProcess start(String name, Map<String, String> extra) throws IOException {
        Map<String, String> all = new LinkedHashMap<>(options);
        all.putAll(extra);
        MemberProcess member = MemberProcess.start(name, all, timeline, logDir, log4j);
        members.put(name, member);
        return member;
    }

    MemberProcess member(String name) {
        return members.get(name);
    }

    /** The time of {@code member}'s first event of {@code kind}, waiting for it at most {@code timeout}. */
    long awaitEvent(String member, char kind, Duration timeout) throws InterruptedException {
        return awaitEvent(member, kind, Long.MIN_VALUE, timeout);
    }

    /** The time of {@code member}'s first event of {@code kind} after {@code after}, waiting at most {@code timeout}. */
    long awaitEvent(String member, char kind, long after, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            var found = timeline.events(member, kind).stream()
                    .filter(e -> e.nanos() > after)
                    .findFirst();
            if (found.isPresent()) {
                return found.get().nanos();
            }
            check(List.of(member));
            if (System.nanoTime() > deadline) {
                throw new BenchFailure(member + " reported no '" + kind + "' within " + timeout);
            }
            TimeUnit.MILLISECONDS.sleep(LOOK_EVERY_MS);
        }
    }

    /**
     * Waits until the {@code live} members' partitions are settled ({@link
     * GroupTimeline#settled}) by a callback after {@code since} and no callback came for {@link
     * #quiet}; returns the time of the last callback that moved a partition: when every live member
     * had its new assignment. Fails after {@code timeout}, or when a live member ended.
     */
    long awaitSettled(Collection<String> live, long since, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            check(live);
            long now = System.nanoTime();
            OptionalLong changed = timeline.lastOwnershipChangeAfter(since);
            OptionalLong lastCallback = timeline.lastAfter(since, "ARL");
            if (changed.isPresent()
                    && now - lastCallback.getAsLong() >= quiet.toNanos()
                    && timeline.settled(live, partitions)) {
                return changed.getAsLong();
            }
            if (now > deadline) {
                throw new BenchFailure("the partitions were not settled among " + live + " within " + timeout
                        + "; ownership: " + timeline.ownership());
            }
            TimeUnit.MILLISECONDS.sleep(LOOK_EVERY_MS);
        }
    }

    /** Fails when one of {@code live} ended or its reader failed. */
    void check(Collection<String> live) {
        for (String name : live) {
            MemberProcess member = members.get(name);
            if (member.failure() != null) {
                throw new BenchFailure(member.failure());
            }
            if (!member.isAlive()) {
                throw new BenchFailure(name + " of " + id + " ended by itself (see its .err file)");
            }
        }
    }

    /** Every member still running leaves (all asked at once), each within {@code patience}. */
    void leaveAll(Duration patience) throws InterruptedException {
        for (MemberProcess member : members.values()) {
            if (member.isAlive()) {
                try {
                    member.send("leave");
                } catch (IOException e) {
                    // gone meanwhile
                }
            }
        }
        for (MemberProcess member : members.values()) {
            member.leave(patience);
        }
    }

    /**
     * Stops every member still running and writes the group's events to {@code <group>.events} in
     * the log directory, one line each: the wall-clock time (to set beside the servers' logs), the
     * member and its line.
     */
    @Override
    public void close() {
        members.values().forEach(MemberProcess::close);
        long wallMinusNanos = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
        var text = new StringBuilder();
        for (GroupTimeline.Event e : timeline.events()) {
            Instant wall = Instant.EPOCH.plusNanos(e.nanos() + wallMinusNanos);
            text.append(wall)
                    .append(' ')
                    .append(e.member())
                    .append(' ')
                    .append(e.line())
                    .append('\n');
        }
        try {
            Files.writeString(logDir.resolve(id + ".events"), text);
        } catch (IOException e) {
            GroupBench.progress("could not write the events of %s: %s", id, e);
        }
    }

    /** A case that could not be measured: its row gets the message, the run goes on. */
    static final class BenchFailure extends RuntimeException {
        BenchFailure(String message) {
            super(message);
        }
    }
}
