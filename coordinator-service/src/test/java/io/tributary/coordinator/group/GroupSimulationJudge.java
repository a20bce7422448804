package io.tributary.coordinator.group;

import static io.tributary.coordinator.group.GroupSimulationTest.ACCEPTED;
import static io.tributary.coordinator.group.GroupSimulationTest.CARRIED;
import static io.tributary.coordinator.group.GroupSimulationTest.GROUP;
import static io.tributary.coordinator.group.GroupSimulationTest.MOVES;
import static io.tributary.coordinator.group.GroupSimulationTest.NOT_ASKED;
import static io.tributary.coordinator.group.GroupSimulationTest.REBALANCES;
import static io.tributary.coordinator.group.GroupSimulationTest.REBALANCE_MS;
import static io.tributary.coordinator.group.GroupSimulationTest.SESSION_MS;
import static io.tributary.coordinator.group.GroupSimulationTest.TICK_MS;
import static io.tributary.coordinator.group.GroupSimulationTest.ZOMBIE_MOVES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.tributary.common.testing.SimulationCoverage;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The judge of {@link GroupSimulationTest}: the test's own record of what the coordinator's
 * released answers told each member id ({@link Answered}), never read from the coordinator's state,
 * and the invariants judged from it (see the test's class comment): {@code SingleOwner}, {@code
 * RevokeBeforeMove}, {@code ZombieCommitsRejected}, {@code StaleCommitsRejected}, {@code
 * MonotonicCommits}, {@code NoRejoinAfterFailover}, {@code EventuallyOwned}.
 */
final class GroupSimulationJudge {

    private final List<SimulatedMember> clients;
    private final SimulationCoverage.Tally tally;
    /** The test's record of every member id the coordinator answered. */
    private final Map<String, Answered> answered = new HashMap<>();
    /** The member id the coordinator's answers last gave each partition to. */
    private final Map<TopicIdPartition, String> givenTo = new HashMap<>();
    /** The committed offsets, as the accepted commits left them. */
    private final Map<String, Long> committed = new HashMap<>();

    private int lastStableEpoch = -1;

    GroupSimulationJudge(List<SimulatedMember> clients, SimulationCoverage.Tally tally) {
        this.clients = clients;
        this.tally = tally;
    }

    /**
     * What the coordinator's answers told the test about one member id: the test's own record,
     * kept from the answers as they were given (whether or not they reached the member), never read
     * from the coordinator's state.
     */
    static final class Answered {
        /** When the coordinator computed its last answer released without an error. */
        long lastHeardAt;
        /** Since when its session runs: that answer, or a later load that found it stored. */
        long sessionFrom;
        /**
         * When the coordinator last served one of its heartbeats, answered or not: its session runs
         * from then in the coordinator's memory (a failed write or a failover loads it with a fresh
         * session), so its commits are accepted until a session after it.
         */
        long servedAt;
        /** Whether its last answered heartbeat was a leave. */
        boolean left;
        /**
         * Whether a write about it failed but was committed all the same (an unknown outcome), so
         * what is stored of it may be a step ahead of its last answer (until the next one).
         */
        boolean aheadOfItsAnswer;
        /** The epoch it was last told. */
        int epoch;
        /** The assignment it was last told. */
        SortedSet<TopicIdPartition> told = new TreeSet<>();
        /** Since when it has been asked to give up partitions it has not said it gave up. */
        long revokeAskedAt = NOT_ASKED;
    }

    /** The committed offset of a partition, if any. */
    Long committed(TopicIdPartition partition) {
        return committed.get(key(partition));
    }

    /**
     * The coordinator served a heartbeat of this member (answered or not): its session runs from
     * then in the coordinator's memory (a failed write or a failover loads it with a fresh session).
     */
    void served(String memberId, long computedAt) {
        Optional.ofNullable(answered.get(memberId)).ifPresent(seen -> seen.servedAt = computedAt);
    }

    /** A write that failed was stored all the same: the members it names may be a step ahead. */
    void storedAheadOfItsAnswers(List<ConsumerGroupRecord> records) {
        records.forEach(r -> r.memberId().map(answered::get).ifPresent(seen -> seen.aheadOfItsAnswer = true));
    }

    /** A load starts the session of every stored member afresh. */
    void restartSessions(Collection<StoredConsumerGroup> stored, long now) {
        for (StoredConsumerGroup group : stored) {
            for (String memberId : group.members().keySet()) {
                Optional.ofNullable(answered.get(memberId)).ifPresent(seen -> seen.sessionFrom = now);
            }
        }
    }

    /** Checks an accepted commit against the test's record and the coordinator's described member. */
    void checkAccepted(
            String memberId,
            int epoch,
            Map<TopicIdPartition, Long> offsets,
            Optional<GroupDescription.Member> member,
            long now) {
        // ZombieCommitsRejected, from the test's record: removed after a session timeout (at the
        // next timer tick; counted from the last heartbeat served or load), its commits are refused.
        Answered seen = answered.get(memberId);
        assertThat(seen)
                .as("ZombieCommitsRejected: %s was accepted, never answered as a member", memberId)
                .isNotNull();
        assertThat(now - Math.max(seen.sessionFrom, seen.servedAt))
                .as("ZombieCommitsRejected: %s was accepted, silent for longer than its session", memberId)
                .isLessThanOrEqualTo(SESSION_MS + TICK_MS);
        offsets.forEach((partition, offset) -> assertThat(givenTo.get(partition))
                .as("StaleCommitsRejected: %s committed %s, last given to another member", memberId, partition)
                .isEqualTo(memberId));
        // The same, as the coordinator describes itself (an extra check).
        assertThat(member)
                .as("ZombieCommitsRejected: %s was accepted without being a member", memberId)
                .isPresent();
        // KIP-1251: an older epoch commits only partitions owned since then (checked below: still owned).
        assertThat(member.get().memberEpoch()).as("StaleCommitsRejected").isGreaterThanOrEqualTo(epoch);
        Set<TopicIdPartition> ownedThere = new TreeSet<>(member.get().assigned());
        ownedThere.addAll(member.get().pendingRevocation());
        offsets.forEach((partition, offset) -> {
            assertThat(ownedThere)
                    .as("StaleCommitsRejected: %s committed %s it does not own", memberId, partition)
                    .contains(partition);
            Long previous = committed.get(key(partition));
            assertThat(offset)
                    .as("MonotonicCommits: %s by %s", partition, memberId)
                    .isGreaterThanOrEqualTo(previous == null ? 0 : previous);
            committed.put(key(partition), offset);
        });
        tally.count(ACCEPTED);
    }

    /**
     * Records a heartbeat the coordinator answered, and checks {@code RevokeBeforeMove} on it:
     * each partition the answer gives is owned by no other live member that the coordinator
     * may not have removed.
     */
    void observe(HeartbeatRequest request, HeartbeatResponse response, long computedAt, long now) {
        if (request.memberEpoch() < 0) {
            // A leave: the member stopped before it was sent.
            Optional.ofNullable(answered.get(request.memberId())).ifPresent(seen -> seen.left = true);
            return;
        }
        String memberId = request.memberId();
        Answered seen = answered.computeIfAbsent(memberId, id -> new Answered());
        boolean join = request.memberEpoch() == HeartbeatRequest.JOIN_EPOCH;
        if (join) {
            seen.told = new TreeSet<>(); // it joins owning nothing
        }
        // Revocation acknowledged: at its current epoch (or joining), it lists only what it was told.
        boolean ackAllowed = join || request.memberEpoch() == seen.epoch;
        if (ackAllowed
                && request.ownedPartitions().filter(seen.told::containsAll).isPresent()) {
            seen.revokeAskedAt = NOT_ASKED;
        }
        seen.lastHeardAt = computedAt;
        seen.sessionFrom = Math.max(seen.sessionFrom, computedAt);
        seen.left = false;
        seen.aheadOfItsAnswer = false;
        seen.epoch = response.memberEpoch();
        if (response.assignment().isEmpty()) {
            return;
        }
        SortedSet<TopicIdPartition> assignment = response.assignment().get();
        if (!assignment.containsAll(seen.told) && seen.revokeAskedAt == NOT_ASKED) {
            seen.revokeAskedAt = computedAt;
        }
        for (TopicIdPartition partition : assignment) {
            String previous = givenTo.put(partition, memberId);
            boolean moved = previous != null && !previous.equals(memberId);
            if (moved) {
                tally.count(MOVES);
            }
            for (SimulatedMember other : clients) {
                if (other.alive && !other.memberId.equals(memberId) && other.owned.containsKey(partition)) {
                    assertThat(mayBeRemoved(other.memberId, now))
                            .as(
                                    "RevokeBeforeMove: %s given to %s while %s, still a member, owns it",
                                    partition, memberId, other.memberId)
                            .isTrue();
                    if (moved) {
                        tally.count(ZOMBIE_MOVES);
                    }
                }
            }
        }
        seen.told = new TreeSet<>(assignment);
    }

    /**
     * Whether the protocol allows the coordinator to have removed this member by now, judged
     * from the test's record only: its session timeout passed since its last answer (or the last
     * load that found it stored), or its rebalance timeout passed since it was asked to revoke.
     */
    boolean mayBeRemoved(String memberId, long now) {
        Answered seen = answered.get(memberId);
        return seen == null
                || now > seen.sessionFrom + SESSION_MS
                || (seen.revokeAskedAt != NOT_ASKED && now > seen.revokeAskedAt + REBALANCE_MS);
    }

    static String key(TopicIdPartition partition) {
        return partition.topicId() + "/" + partition.partition();
    }

    /**
     * NoRejoinAfterFailover: every member whose last answer was released, that may not have been
     * removed and did not leave, is known to the new coordinator at the epoch it was told.
     */
    void checkNoRejoinAfterFailover(GroupCoordinator coordinator, long now) {
        Map<String, Integer> epochs = new HashMap<>();
        coordinator.describe(GROUP).ifPresent(g -> g.members().forEach(m -> epochs.put(m.memberId(), m.memberEpoch())));
        answered.forEach((memberId, seen) -> {
            if (seen.left
                    || seen.aheadOfItsAnswer
                    || now > seen.sessionFrom + SESSION_MS
                    || (seen.revokeAskedAt != NOT_ASKED && now > seen.revokeAskedAt + REBALANCE_MS)) {
                return;
            }
            assertThat(epochs.get(memberId))
                    .as("NoRejoinAfterFailover: %s was told epoch %d before the failover", memberId, seen.epoch)
                    .isEqualTo(seen.epoch);
            tally.count(CARRIED);
        });
    }

    void checkInvariants(GroupCoordinator coordinator, long now) {
        // SingleOwner on the members' side: what each was told, less what it revoked.
        Map<TopicIdPartition, String> owners = new HashMap<>();
        for (SimulatedMember client : clients) {
            if (!client.alive || mayBeRemoved(client.memberId, now)) {
                continue; // a zombie's commits are refused (ZombieCommitsRejected)
            }
            for (TopicIdPartition partition : client.owned.keySet()) {
                String other = owners.put(partition, client.memberId);
                if (other != null) {
                    fail("SingleOwner: %s owned by %s and %s", partition, other, client.memberId);
                }
            }
        }
        Optional<GroupDescription> group = coordinator.describe(GROUP);
        Map<String, GroupDescription.Member> members = new HashMap<>();
        if (group.isPresent()) {
            GroupDescription g = group.get();
            if (g.state().equals(GroupDescription.STABLE) && g.assignmentEpoch() != lastStableEpoch) {
                lastStableEpoch = g.assignmentEpoch();
                tally.count(REBALANCES);
            }
            // SingleOwner in the coordinator's described state, computed here.
            Map<TopicIdPartition, String> ownersThere = new HashMap<>();
            for (GroupDescription.Member m : g.members()) {
                members.put(m.memberId(), m);
                for (Set<TopicIdPartition> owned : List.of(m.assigned(), m.pendingRevocation())) {
                    for (TopicIdPartition partition : owned) {
                        String other = ownersThere.put(partition, m.memberId());
                        if (other != null) {
                            fail("SingleOwner: the coordinator has %s at %s and %s", partition, other, m.memberId());
                        }
                    }
                }
            }
        }
        coordinator.checkInvariants(); // its own view of the same, as an extra check
        for (SimulatedMember client : clients) {
            GroupDescription.Member member = client.alive ? members.get(client.memberId) : null;
            if (member == null) {
                continue; // a zombie (or not joined yet): its commits are refused
            }
            for (TopicIdPartition partition : client.owned.keySet()) {
                if (!member.assigned().contains(partition)
                        && !member.pendingRevocation().contains(partition)) {
                    fail(
                            "RevokeBeforeMove: %s owns %s but the coordinator gave it away (%s)",
                            client.memberId, partition, member);
                }
            }
        }
    }

    void checkEventuallyOwned(GroupCoordinator coordinator, FakeTopics topics) {
        GroupDescription group = coordinator.describe(GROUP).orElseThrow(() -> new AssertionError("no group"));
        assertThat(group.state()).as("EventuallyOwned: group state").isEqualTo(GroupDescription.STABLE);
        Map<TopicIdPartition, String> owners = new HashMap<>();
        for (SimulatedMember client : clients) {
            if (!client.alive) {
                continue;
            }
            for (TopicIdPartition partition : client.owned.keySet()) {
                assertThat(owners.put(partition, client.memberId))
                        .as("owned twice: %s", partition)
                        .isNull();
            }
        }
        for (String name : List.of("t", "u", "v")) {
            TopicView.TopicInfo topic = topics.get(name);
            if (topic == null) {
                continue;
            }
            boolean subscribed = clients.stream()
                    .anyMatch(c -> c.alive
                            && (c.topics.contains(name)
                                    || c.regex.filter(name::matches).isPresent()));
            for (int p = 0; p < topic.partitionCount() && subscribed; p++) {
                assertThat(owners)
                        .as("EventuallyOwned: %s-%d", name, p)
                        .containsKey(new TopicIdPartition(topic.id(), p));
            }
        }
    }
}
