package io.tributary.coordinator.group.classic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.tributary.coordinator.group.ClassicJoin;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.common.protocol.Errors;

/**
 * The judge of {@link ClassicGroupSimulationTest}: the test's own record of what the coordinator
 * answered (whether or not the answer reached the member) and of what was made durable, never the
 * coordinator's view of itself. Members are keyed by their owner: a static member's instance id
 * (its member id changes when it joins again without one), else its member id.
 *
 * <p>Invariants, checked as answers are given and at the end of every event:
 *
 * <ul>
 *   <li>{@code OneGenerationAtATime}: an assignment handed out for generation g is the one stored
 *       (durable) for that member in generation g, and the only one that member gets for g; a new
 *       coordinator leader never starts below a generation that was handed out (else a second,
 *       different generation g could be handed out);
 *   <li>{@code LeadersAssignmentDelivered}: what a member is handed out for g is exactly what g's
 *       leader assigned it (nothing when the leader assigned it nothing);
 *   <li>{@code NoPartitionOwnedTwiceInOneGeneration}: the assignments handed out for one generation
 *       are disjoint;
 *   <li>{@code LeaderKnowsTheMembers}: a generation's answers name a leader that was answered with
 *       the member list (only it), so someone can assign;
 *   <li>{@code DynamicMembersJoinEachGeneration}: a dynamic member is listed in a generation only if
 *       its JoinGroup reached the coordinator since the previous list (the rebalance timeout removes
 *       the others; static members are kept);
 *   <li>{@code StaleCommitsRejected}: a commit is accepted only at the current generation (the
 *       highest joined or loaded since the last take-over), from a member of it the coordinator has
 *       not said is gone (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, left, or missing from a later
 *       generation's member list);
 *   <li>{@code CommittedOffsetsNeverGoBack}: per partition, accepted commits never go below the
 *       committed offset (members commit their own positions, which start at the committed offset).
 * </ul>
 */
final class ClassicGroupOracle {

    private static final byte[] NOTHING = new byte[0];

    /** The leader's assignment of each generation, by owner. */
    private final Map<Integer, Map<String, byte[]>> leaderSent = new HashMap<>();
    /** What each owner was handed out in each generation. */
    private final Map<Integer, Map<String, byte[]>> handedOut = new HashMap<>();
    /** The last record made durable for each generation. */
    private final Map<Integer, ClassicGroupRecord> durable = new HashMap<>();
    /** Member ids of each generation: its leader's list, static members joining again, a load. */
    private final Map<Integer, Set<String>> membersOf = new HashMap<>();
    /** The instance id of each static member id seen. */
    private final Map<String, String> instanceOf = new HashMap<>();
    /** The member ids answered with a generation's member list. */
    private final Map<Integer, Set<String>> listedLeaders = new HashMap<>();
    /** Member ids answered with a generation, since the last take-over. */
    private final Set<String> joined = new HashSet<>();
    /** Member ids whose JoinGroup reached the coordinator since the last member list. */
    private final Set<String> joinedSinceLastList = new HashSet<>();
    /** Member ids the coordinator said are gone. */
    private final Set<String> removed = new HashSet<>();

    private final Map<Integer, Long> committed = new HashMap<>();
    /** Checks that hold once the event that gave the answers is over. */
    private final List<Runnable> atEndOfEvent = new ArrayList<>();

    private int currentGeneration;
    private int highestHandedOut;

    /** The committed offset of a partition (0 when none): where a member starts consuming it. */
    long committed(int partition) {
        return committed.getOrDefault(partition, 0L);
    }

    /** The highest generation whose assignment was handed out. */
    int highestHandedOut() {
        return highestHandedOut;
    }

    static String owner(String memberId, Optional<String> instanceId) {
        return instanceId.orElse(memberId);
    }

    static byte[] encode(SortedSet<Integer> partitions) {
        ByteBuffer buffer = ByteBuffer.allocate(4 * partitions.size());
        partitions.forEach(buffer::putInt);
        return buffer.array();
    }

    static SortedSet<Integer> decode(byte[] assignment) {
        SortedSet<Integer> partitions = new TreeSet<>();
        ByteBuffer buffer = ByteBuffer.wrap(assignment);
        while (buffer.remaining() >= 4) {
            partitions.add(buffer.getInt());
        }
        assertThat(buffer.remaining()).as("assignment bytes").isZero();
        return partitions;
    }

    /** A JoinGroup with a member id reached the coordinator (before it is answered). */
    void joinArrived(String memberId) {
        if (!memberId.isEmpty()) {
            joinedSinceLastList.add(memberId);
        }
    }

    /** A JoinGroup answered (NONE or an error). */
    void joinAnswered(ClassicJoin request, ClassicJoinResult answer) {
        if (answer.error() != Errors.NONE) {
            if (gone(answer.error()) && !request.memberId().isEmpty()) {
                removed.add(request.memberId());
            }
            return;
        }
        int generation = answer.generationId();
        request.instanceId().ifPresent(instance -> instanceOf.put(answer.memberId(), instance));
        answer.members().forEach(m -> m.instanceId().ifPresent(instance -> instanceOf.put(m.memberId(), instance)));
        currentGeneration = Math.max(currentGeneration, generation);
        joined.add(answer.memberId());
        membersOf.computeIfAbsent(generation, g -> new HashSet<>()).add(answer.memberId());
        if (!answer.members().isEmpty()) {
            assertThat(answer.leaderId())
                    .as("LeaderKnowsTheMembers: only the leader gets the member list (generation %d)", generation)
                    .isEqualTo(answer.memberId());
            Set<String> listed = new HashSet<>();
            answer.members().forEach(m -> listed.add(m.memberId()));
            // The first list of a generation (a leader joining again is listed the same members).
            boolean completion = !listedLeaders.containsKey(generation);
            for (ClassicJoinResult.JoinedMember member : answer.members()) {
                if (completion && member.instanceId().isEmpty()) {
                    assertThat(joinedSinceLastList)
                            .as(
                                    "DynamicMembersJoinEachGeneration: %s is in generation %d without having joined since the last one",
                                    member.memberId(), generation)
                            .contains(member.memberId());
                }
            }
            if (completion) {
                joinedSinceLastList.clear();
            }
            listedLeaders.computeIfAbsent(generation, g -> new HashSet<>()).add(answer.memberId());
            membersOf.get(generation).addAll(listed);
            for (String member : joined) {
                if (!listed.contains(member) && !member.equals(answer.memberId())) {
                    removed.add(member);
                }
            }
            joined.addAll(listed);
        }
        String leader = answer.leaderId();
        atEndOfEvent.add(() -> assertThat(knowsTheMembers(generation, leader))
                .as(
                        "LeaderKnowsTheMembers: generation %d answered %s with leader %s, which never got the member list",
                        generation, answer.memberId(), leader)
                .isTrue());
    }

    /**
     * Whether the named leader of a generation got its member list: itself, or, for a static
     * member, under another member id of its instance (a static leader that joined again without
     * a rebalance leads under its new id, and before JoinGroup v9 is told its previous id leads,
     * as Kafka does: neither id is answered with the list in that generation).
     */
    private boolean knowsTheMembers(int generation, String leader) {
        Set<String> listed = listedLeaders.getOrDefault(generation, Set.of());
        if (listed.contains(leader)) {
            return true;
        }
        String instance = instanceOf.get(leader);
        return instance != null && listed.stream().anyMatch(id -> instance.equals(instanceOf.get(id)));
    }

    /**
     * A SyncGroup with an assignment was accepted (not refused at once). It is the generation's
     * leader's when its sender was answered with the generation's member list (since the last
     * take-over: a generation number above the loaded one is used again), and only the first such
     * counts: the coordinator ignores the assignments of a leader's SyncGroup sent again.
     *
     * @param members the member list of the sender's JoinGroup answer
     */
    void assignmentSent(
            String memberId,
            int generation,
            Map<String, byte[]> assignments,
            List<ClassicJoinResult.JoinedMember> members) {
        if (!listedLeaders.getOrDefault(generation, Set.of()).contains(memberId)) {
            return;
        }
        Map<String, byte[]> byOwner = new HashMap<>();
        for (ClassicJoinResult.JoinedMember member : members) {
            byOwner.put(
                    owner(member.memberId(), member.instanceId()),
                    assignments.getOrDefault(member.memberId(), NOTHING));
        }
        leaderSent.putIfAbsent(generation, byOwner);
    }

    /** A SyncGroup answered (NONE or an error). */
    void syncAnswered(String memberId, Optional<String> instanceId, int generation, ClassicSyncResult answer) {
        if (answer.error() != Errors.NONE) {
            if (gone(answer.error())) {
                removed.add(memberId);
            }
            return;
        }
        String owner = owner(memberId, instanceId);
        byte[] assignment = answer.assignment();
        ClassicGroupRecord stored = durable.get(generation);
        if (stored == null) {
            fail(
                    "OneGenerationAtATime: %s handed out an assignment of generation %d, which was never stored",
                    memberId, generation);
        }
        Optional<ClassicGroupRecord.Member> storedMember = stored.members().stream()
                .filter(m -> owner(m.memberId(), m.instanceId()).equals(owner))
                .findFirst();
        assertThat(storedMember)
                .as("OneGenerationAtATime: %s handed out generation %d, stored without it", memberId, generation)
                .isPresent();
        assertThat(storedMember.get().assignment())
                .as(
                        "OneGenerationAtATime: %s handed out in generation %d something else than was stored",
                        memberId, generation)
                .isEqualTo(assignment);
        Map<String, byte[]> generationAnswers = handedOut.computeIfAbsent(generation, g -> new HashMap<>());
        byte[] before = generationAnswers.get(owner);
        if (before != null) {
            assertThat(assignment)
                    .as("OneGenerationAtATime: %s handed out two assignments in generation %d", owner, generation)
                    .isEqualTo(before);
        }
        Map<String, byte[]> leaders = leaderSent.get(generation);
        assertThat(leaders)
                .as("LeadersAssignmentDelivered: generation %d handed out before its leader assigned", generation)
                .isNotNull();
        assertThat(assignment)
                .as("LeadersAssignmentDelivered: %s in generation %d", owner, generation)
                .isEqualTo(leaders.getOrDefault(owner, NOTHING));
        SortedSet<Integer> partitions = decode(assignment);
        generationAnswers.forEach((other, otherAssignment) -> {
            if (!other.equals(owner)) {
                SortedSet<Integer> overlap = new TreeSet<>(partitions);
                overlap.retainAll(decode(otherAssignment));
                assertThat(overlap)
                        .as(
                                "NoPartitionOwnedTwiceInOneGeneration: %s and %s in generation %d",
                                owner, other, generation)
                        .isEmpty();
            }
        });
        generationAnswers.put(owner, assignment);
        highestHandedOut = Math.max(highestHandedOut, generation);
    }

    /** A Heartbeat or OffsetCommit refused with this error. */
    void refused(String memberId, Errors error) {
        if (gone(error)) {
            removed.add(memberId);
        }
    }

    /** A member named in a LeaveGroup left (NONE). */
    void left(String memberId) {
        removed.add(memberId);
    }

    /** A record was made durable. */
    void stored(ClassicGroupRecord record) {
        durable.put(record.generationId(), record);
    }

    /** A new coordinator leader took the group over from what was durable (nothing: empty). */
    void tookOver(Optional<ClassicGroupRecord> loaded) {
        int generation = loaded.map(ClassicGroupRecord::generationId).orElse(0);
        assertThat(generation)
                .as(
                        "OneGenerationAtATime: generation %d was handed out, the new leader starts from %d",
                        highestHandedOut, generation)
                .isGreaterThanOrEqualTo(highestHandedOut);
        // Generations above the loaded one were never handed out: they are forgotten, and numbered again.
        leaderSent.keySet().removeIf(g -> g > generation);
        handedOut.keySet().removeIf(g -> g > generation);
        membersOf.keySet().removeIf(g -> g > generation);
        listedLeaders.keySet().removeIf(g -> g > generation);
        currentGeneration = generation;
        joined.clear();
        joinedSinceLastList.clear();
        loaded.ifPresent(record -> record.members().forEach(m -> {
            removed.remove(m.memberId());
            joined.add(m.memberId());
            membersOf.computeIfAbsent(generation, g -> new HashSet<>()).add(m.memberId());
        }));
    }

    /** A commit was accepted: checks it, then records its offsets. */
    void commitAccepted(String memberId, int generation, Map<Integer, Long> offsets) {
        assertThat(generation)
                .as(
                        "StaleCommitsRejected: %s committed at generation %d, the current one is %d",
                        memberId, generation, currentGeneration)
                .isEqualTo(currentGeneration);
        assertThat(removed)
                .as("StaleCommitsRejected: %s committed after the coordinator said it was gone", memberId)
                .doesNotContain(memberId);
        if (listedLeaders.containsKey(generation)) {
            assertThat(membersOf.get(generation))
                    .as(
                            "StaleCommitsRejected: %s committed at generation %d without being a member of it",
                            memberId, generation)
                    .contains(memberId);
        }
        offsets.forEach((partition, offset) -> {
            assertThat(offset)
                    .as("CommittedOffsetsNeverGoBack: partition %d committed by %s", partition, memberId)
                    .isGreaterThanOrEqualTo(committed(partition));
            committed.put(partition, offset);
        });
    }

    /** Runs the checks of the event's answers. */
    void endOfEvent() {
        List<Runnable> checks = List.copyOf(atEndOfEvent);
        atEndOfEvent.clear();
        checks.forEach(Runnable::run);
    }

    private static boolean gone(Errors error) {
        return error == Errors.UNKNOWN_MEMBER_ID || error == Errors.FENCED_INSTANCE_ID;
    }
}
