package io.tributary.coordinator.group.classic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.ClassicProtocol;
import io.tributary.coordinator.group.GroupCoordinator.Committer;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.Delete;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.LeavingMember;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.Store;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.StoreTask;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The classic group state machine, one behaviour per test, time as a parameter. Every call goes
 * through a helper that runs the coordinator's {@code checkInvariants()} after it.
 */
class ClassicGroupCoordinatorTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final String GROUP = "g";
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 30_000;
    private static final ClassicGroupConfig NO_DELAY =
            ClassicGroupConfig.DEFAULTS.withInitialRebalanceDelay(Duration.ZERO);

    private long ids;
    private ClassicGroupCoordinator coordinator = coordinator(NO_DELAY);
    private final InMemoryClassicGroupStore store = new InMemoryClassicGroupStore();
    private long now = T0;

    private ClassicGroupCoordinator coordinator(ClassicGroupConfig config) {
        return new ClassicGroupCoordinator(config, () -> new UUID(0, ++ids));
    }

    @AfterEach
    void invariantsHoldAtTheEnd() {
        coordinator.checkInvariants();
    }

    // ---------------------------------------------------------------------------------- helpers

    private static List<ClassicProtocol> protocols(String... names) {
        List<ClassicProtocol> protocols = new ArrayList<>();
        for (String name : names) {
            protocols.add(new ClassicProtocol(name, ("meta-" + name).getBytes(StandardCharsets.UTF_8)));
        }
        return protocols;
    }

    private static ClassicJoin request(String memberId, Optional<String> instanceId, List<ClassicProtocol> protocols) {
        return request(memberId, instanceId, protocols, true);
    }

    private static ClassicJoin request(
            String memberId, Optional<String> instanceId, List<ClassicProtocol> protocols, boolean skipAssignment) {
        return new ClassicJoin(
                GROUP,
                memberId,
                instanceId,
                "consumer",
                protocols,
                SESSION_MS,
                REBALANCE_MS,
                "client",
                "/127.0.0.1",
                true,
                skipAssignment);
    }

    /** A first JoinGroup (no member id, dynamic) with the given fields. */
    private static ClassicJoin first(
            String groupId,
            String protocolType,
            List<ClassicProtocol> protocols,
            int sessionMs,
            int rebalanceMs,
            boolean requireKnownMemberId) {
        return new ClassicJoin(
                groupId,
                "",
                Optional.empty(),
                protocolType,
                protocols,
                sessionMs,
                rebalanceMs,
                "client",
                "/127.0.0.1",
                requireKnownMemberId,
                true);
    }

    private static ClassicJoin request(String memberId) {
        return request(memberId, Optional.empty(), protocols("range"));
    }

    private CompletableFuture<ClassicJoinResult> join(ClassicJoin join) {
        CompletableFuture<ClassicJoinResult> answer = coordinator.join(join, now);
        coordinator.checkInvariants();
        return answer;
    }

    /** KIP-394: the first join gets MEMBER_ID_REQUIRED with the id to join with. */
    private String memberId() {
        ClassicJoinResult required = done(join(request("")));
        assertThat(required.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        return required.memberId();
    }

    private CompletableFuture<ClassicSyncResult> sync(
            String memberId, int generation, Map<String, byte[]> assignments) {
        return sync(memberId, Optional.empty(), generation, assignments);
    }

    private CompletableFuture<ClassicSyncResult> sync(
            String memberId, Optional<String> instanceId, int generation, Map<String, byte[]> assignments) {
        CompletableFuture<ClassicSyncResult> answer =
                coordinator.sync(GROUP, memberId, instanceId, generation, Optional.empty(), assignments, now);
        coordinator.checkInvariants();
        return answer;
    }

    private void heartbeat(String memberId, int generation) {
        heartbeat(memberId, Optional.empty(), generation);
    }

    private void heartbeat(String memberId, Optional<String> instanceId, int generation) {
        coordinator.heartbeat(GROUP, memberId, instanceId, generation, now);
        coordinator.checkInvariants();
    }

    private List<Errors> leave(LeavingMember... members) {
        List<Errors> errors = coordinator.leave(GROUP, List.of(members), now);
        coordinator.checkInvariants();
        return errors;
    }

    private int tick() {
        int removed = coordinator.tick(now);
        coordinator.checkInvariants();
        return removed;
    }

    /** Makes the queued writes durable in order and reports each, as the group service does. */
    private List<StoreTask> flush() {
        List<StoreTask> tasks = coordinator.drainStores();
        for (StoreTask task : tasks) {
            apply(task);
            coordinator.stored(task, Optional.empty(), now);
            coordinator.checkInvariants();
        }
        return tasks;
    }

    private void apply(StoreTask task) {
        try {
            switch (task) {
                case Store s -> store.store(s.record());
                case Delete d -> store.delete(d.groupId());
            }
        } catch (OffsetStoreException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * A member's heartbeat thread during a rebalance it does not join: REBALANCE_IN_PROGRESS every
     * 5 s (its session holds) until just before {@code until}; nobody is removed meanwhile.
     */
    private void heartbeatWithoutJoining(String memberId, Optional<String> instanceId, int generation, long until) {
        while (now < until - 1) {
            now = Math.min(now + 5000, until - 1);
            assertError(Errors.REBALANCE_IN_PROGRESS, () -> heartbeat(memberId, instanceId, generation));
            assertThat(tick()).isZero();
        }
    }

    private static <T> T done(CompletableFuture<T> future) {
        assertThat(future).isDone();
        return future.join();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, byte[]> assign(Object... memberAndText) {
        Map<String, byte[]> assignments = new LinkedHashMap<>();
        for (int i = 0; i < memberAndText.length; i += 2) {
            assignments.put((String) memberAndText[i], bytes((String) memberAndText[i + 1]));
        }
        return assignments;
    }

    private static void assertError(Errors error, ThrowingCallable call) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        GroupException.class, e -> assertThat(e.error()).isEqualTo(error));
    }

    private ClassicGroupDescription describe() {
        return coordinator.describe(GROUP).orElseThrow();
    }

    /** A member that joined alone and synced: the group is Stable at generation 1. */
    private String stableAlone(String assignment) {
        String a = memberId();
        ClassicJoinResult joined = done(join(request(a)));
        CompletableFuture<ClassicSyncResult> synced = sync(a, joined.generationId(), assign(a, assignment));
        flush();
        assertThat(done(synced).error()).isEqualTo(Errors.NONE);
        return a;
    }

    /** A (leader, already in) and a new member B: returns B's id, both at the next generation. */
    private String joinSecond(String a, int generation) {
        String b = memberId();
        CompletableFuture<ClassicJoinResult> bJoin = join(request(b));
        assertThat(bJoin).isNotDone();
        done(join(request(a)));
        assertThat(done(bJoin).generationId()).isEqualTo(generation + 1);
        return b;
    }

    /** A (leader) and B Stable at generation 2, assigned a2 and b2, stored. */
    private String[] stablePair() {
        String a = stableAlone("a1");
        String b = joinSecond(a, 1);
        sync(a, 2, assign(a, "a2", b, "b2"));
        flush();
        return new String[] {a, b};
    }

    // ---------------------------------------------------------------------------------- JoinGroup

    @Test
    void aNewMemberIsFirstToldItsMemberIdAndThenJoinsWithIt() {
        ClassicJoinResult required = done(join(request("")));

        assertThat(required.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(required.memberId()).startsWith("client-");
        assertThat(required.generationId()).isEqualTo(-1);
        assertThat(describe().state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(describe().members()).as("MEMBER_ID_REQUIRED adds no member").isEmpty();

        ClassicJoinResult joined = done(join(request(required.memberId())));

        assertThat(joined.error()).isEqualTo(Errors.NONE);
        assertThat(joined.generationId()).isEqualTo(1);
        assertThat(joined.memberId()).isEqualTo(required.memberId());
        assertThat(joined.leaderId()).isEqualTo(required.memberId());
        assertThat(joined.protocolType()).contains("consumer");
        assertThat(joined.protocolName()).contains("range");
        assertThat(joined.members())
                .extracting(ClassicJoinResult.JoinedMember::memberId)
                .containsExactly(required.memberId());
        assertThat(describe().state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
    }

    @Test
    void aJoinGroupBelowVersion4JoinsAtOnceWithoutMemberIdRequired() {
        ClassicJoin v3 = first(GROUP, "consumer", protocols("range"), SESSION_MS, REBALANCE_MS, false);

        ClassicJoinResult joined = done(join(v3));

        assertThat(joined.error()).isEqualTo(Errors.NONE);
        assertThat(joined.generationId()).isEqualTo(1);
        assertThat(joined.memberId()).startsWith("client-");
        assertThat(joined.leaderId()).isEqualTo(joined.memberId());
    }

    @Test
    void theFirstMembersJoinWaitsForTheSecondAndOnlyTheLeaderGetsTheMemberList() {
        String a = stableAlone("a1");
        String b = memberId();
        assertThat(describe().state())
                .as("MEMBER_ID_REQUIRED does not rebalance")
                .isEqualTo(ClassicGroupState.STABLE);

        CompletableFuture<ClassicJoinResult> bJoin = join(request(b));

        assertThat(bJoin).isNotDone();
        assertThat(describe().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertError(Errors.REBALANCE_IN_PROGRESS, () -> heartbeat(a, 1));

        ClassicJoinResult aJoined = done(join(request(a)));
        ClassicJoinResult bJoined = done(bJoin);

        assertThat(aJoined.generationId()).isEqualTo(2);
        assertThat(bJoined.generationId()).isEqualTo(2);
        assertThat(aJoined.leaderId()).isEqualTo(a);
        assertThat(bJoined.leaderId()).isEqualTo(a);
        assertThat(aJoined.members())
                .extracting(ClassicJoinResult.JoinedMember::memberId)
                .containsExactly(a, b);
        assertThat(bJoined.members()).isEmpty();
        assertThat(describe().state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
    }

    @Test
    void theProtocolMostMembersPreferAmongThoseAllSupportIsChosen() {
        String a = memberId();
        done(join(request(a, Optional.empty(), protocols("range", "roundrobin", "sticky"))));
        String b = memberId();
        CompletableFuture<ClassicJoinResult> bJoin =
                join(request(b, Optional.empty(), protocols("sticky", "roundrobin", "range")));
        String c = memberId();
        CompletableFuture<ClassicJoinResult> cJoin =
                join(request(c, Optional.empty(), protocols("roundrobin", "range")));

        ClassicJoinResult aJoined =
                done(join(request(a, Optional.empty(), protocols("range", "roundrobin", "sticky"))));

        // Supported by all: range and roundrobin; votes: a range, b roundrobin, c roundrobin.
        assertThat(aJoined.protocolName()).contains("roundrobin");
        assertThat(done(bJoin).protocolName()).contains("roundrobin");
        assertThat(done(cJoin).protocolName()).contains("roundrobin");
        assertThat(aJoined.members()).extracting(m -> m.metadata().name()).containsOnly("roundrobin");
    }

    @Test
    void aJoinWithAnotherProtocolTypeOrNoProtocolInCommonIsInconsistent() {
        stableAlone("a1");

        ClassicJoin connect = first(GROUP, "connect", protocols("range"), SESSION_MS, REBALANCE_MS, true);
        assertError(Errors.INCONSISTENT_GROUP_PROTOCOL, () -> join(connect));
        assertError(
                Errors.INCONSISTENT_GROUP_PROTOCOL, () -> join(request("", Optional.empty(), protocols("roundrobin"))));
        assertThat(describe().state()).isEqualTo(ClassicGroupState.STABLE);
    }

    @Test
    void aJoinWithAnEmptyProtocolTypeOrNoProtocolsIsInconsistent() {
        ClassicJoin noType = first(GROUP, "", protocols("range"), SESSION_MS, REBALANCE_MS, true);

        assertError(Errors.INCONSISTENT_GROUP_PROTOCOL, () -> join(noType));
        assertError(Errors.INCONSISTENT_GROUP_PROTOCOL, () -> join(request("", Optional.empty(), List.of())));
    }

    @Test
    void aSessionTimeoutOutsideTheBoundsIsRefusedAndTheBoundsThemselvesAreAccepted() {
        for (int session : new int[] {5999, 1_800_001}) {
            ClassicJoin join = first(GROUP, "consumer", protocols("range"), session, REBALANCE_MS, true);
            assertError(Errors.INVALID_SESSION_TIMEOUT, () -> join(join));
        }
        assertThat(coordinator.contains(GROUP)).as("no group created").isFalse();
        for (int session : new int[] {6000, 1_800_000}) {
            ClassicJoin join = first(GROUP, "consumer", protocols("range"), session, REBALANCE_MS, true);
            assertThat(done(join(join)).error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        }
    }

    @Test
    void anEmptyGroupIdIsInvalid() {
        ClassicJoin join = first("", "consumer", protocols("range"), SESSION_MS, REBALANCE_MS, true);

        assertError(Errors.INVALID_GROUP_ID, () -> join(join));
    }

    @Test
    void aMadeUpMemberIdIsUnknownInANewGroupAndInAnExistingOne() {
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> join(request("made-up")));
        assertThat(coordinator.contains(GROUP)).as("no group created").isFalse();
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> heartbeat("made-up", 1));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> sync("made-up", 1, Map.of()));
        assertThat(leave(new LeavingMember("made-up", Optional.empty())))
                .as("a group that does not exist: each member unknown, as Kafka")
                .containsExactly(Errors.UNKNOWN_MEMBER_ID);

        stableAlone("a1");

        assertError(Errors.UNKNOWN_MEMBER_ID, () -> join(request("made-up")));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> heartbeat("made-up", 1));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> sync("made-up", 1, Map.of()));
    }

    @Test
    void aGroupAtItsMostMembersRefusesOneMoreCountingMembersStillConfirmingTheirId() {
        coordinator = coordinator(NO_DELAY.withMaxGroupSize(2));
        String a = memberId();
        done(join(request(a)));
        memberId(); // pending: counts

        assertError(Errors.GROUP_MAX_SIZE_REACHED, () -> join(request("")));
        assertError(Errors.GROUP_MAX_SIZE_REACHED, () -> join(request("", Optional.of("static"), protocols("range"))));
    }

    // ---------------------------------------------------------------------------------- rebalance timers

    @Test
    void theInitialRebalanceDelayWaitsEvenWhenAllJoinedAndExtendsWhileMembersCome() {
        coordinator = coordinator(NO_DELAY.withInitialRebalanceDelay(Duration.ofSeconds(3)));
        String a = memberId();
        CompletableFuture<ClassicJoinResult> aJoin = join(request(a));
        assertThat(aJoin).as("all joined, but the initial delay runs").isNotDone();

        now = T0 + 1000;
        String b = memberId();
        CompletableFuture<ClassicJoinResult> bJoin = join(request(b));
        now = T0 + 2999;
        tick();
        assertThat(aJoin).isNotDone();

        now = T0 + 3000;
        tick();
        assertThat(aJoin).as("b came during the first delay: one more delay").isNotDone();
        now = T0 + 5999;
        tick();
        assertThat(aJoin).isNotDone();

        now = T0 + 6000;
        tick();
        assertThat(done(aJoin).generationId()).isEqualTo(1);
        assertThat(done(bJoin).generationId()).isEqualTo(1);
        assertThat(done(aJoin).members()).hasSize(2);
    }

    @Test
    void theInitialRebalanceDelayEndsAtTheRebalanceTimeoutWhileMembersKeepComing() {
        coordinator = coordinator(NO_DELAY.withInitialRebalanceDelay(Duration.ofSeconds(3)));
        ClassicJoin newMember = first(GROUP, "consumer", protocols("range"), SESSION_MS, 10_000, false);
        CompletableFuture<ClassicJoinResult> aJoin = join(newMember);
        List<CompletableFuture<ClassicJoinResult>> joins = new ArrayList<>(List.of(aJoin));
        while (!aJoin.isDone()) {
            now += 100;
            if ((now - T0) % 2000 == 0) {
                joins.add(join(newMember));
            }
            tick();
            assertThat(now - T0).as("bounded by the rebalance timeout").isLessThanOrEqualTo(10_000);
        }

        assertThat(now - T0).isEqualTo(10_000);
        assertThat(joins)
                .hasSize(6)
                .allSatisfy(j -> assertThat(done(j).generationId()).isEqualTo(1));
    }

    @Test
    void theRebalanceTimeoutRemovesADynamicMemberThatDidNotJoinAgainButKeepsAStaticOne() {
        String a = memberId();
        done(join(request(a)));
        CompletableFuture<ClassicJoinResult> sJoin = join(request("", Optional.of("s"), protocols("range")));
        ClassicJoinResult aJoined = done(join(request(a)));
        String s = done(sJoin).memberId();
        sync(s, Optional.of("s"), 2, Map.of());
        sync(a, 2, assign(a, "a2", s, "s2"));
        flush();
        assertThat(describe().state()).isEqualTo(ClassicGroupState.STABLE);

        long start = now;
        String c = memberId();
        CompletableFuture<ClassicJoinResult> cJoin = join(request(c));
        // a and s keep heartbeating (their sessions are shorter than the rebalance) but do not join.
        while (now < start + REBALANCE_MS - 1) {
            now = Math.min(now + 5000, start + REBALANCE_MS - 1);
            assertError(Errors.REBALANCE_IN_PROGRESS, () -> heartbeat(a, aJoined.generationId()));
            assertError(Errors.REBALANCE_IN_PROGRESS, () -> heartbeat(s, Optional.of("s"), 2));
            assertThat(tick()).isZero();
        }
        assertThat(cJoin).isNotDone();

        now = start + REBALANCE_MS;
        tick();

        assertThat(done(cJoin).generationId()).isEqualTo(3);
        assertThat(describe().members())
                .extracting(ClassicGroupDescription.Member::memberId)
                .containsExactlyInAnyOrder(s, c);
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> heartbeat(a, 2));
        assertError(Errors.ILLEGAL_GENERATION, () -> heartbeat(s, Optional.of("s"), 2));
    }

    @Test
    void aLeaderThatDidNotJoinAgainInTimeHandsTheLeadToAMemberThatDid() {
        // s (static) leads; a rebalance starts when c joins; only c joins again in time.
        CompletableFuture<ClassicJoinResult> sJoin = join(request("", Optional.of("s"), protocols("range")));
        String s = done(sJoin).memberId();
        sync(s, Optional.of("s"), 1, assign(s, "s1"));
        flush();
        String c = memberId();
        long start = now;
        CompletableFuture<ClassicJoinResult> cJoin = join(request(c));
        heartbeatWithoutJoining(s, Optional.of("s"), 1, start + REBALANCE_MS);

        now = start + REBALANCE_MS;
        tick();

        ClassicJoinResult cJoined = done(cJoin);
        assertThat(cJoined.leaderId())
                .as("a leader that did not join cannot assign: one that joined leads")
                .isEqualTo(c);
        assertThat(cJoined.members())
                .extracting(ClassicJoinResult.JoinedMember::memberId)
                .containsExactlyInAnyOrder(s, c);
    }

    @Test
    void whenNoMemberJoinedAgainTheJoinBarrierWaitsAnotherRebalanceTimeoutForThem() {
        // Two static members s and t; t leaves; s does not join again in time.
        String s = done(join(request("", Optional.of("s"), protocols("range")))).memberId();
        sync(s, Optional.of("s"), 1, Map.of());
        flush();
        CompletableFuture<ClassicJoinResult> tJoin = join(request("", Optional.of("t"), protocols("range")));
        ClassicJoinResult sJoined = done(join(request(s, Optional.of("s"), protocols("range"))));
        String t = done(tJoin).memberId();
        sync(s, Optional.of("s"), sJoined.generationId(), Map.of());
        sync(t, Optional.of("t"), sJoined.generationId(), Map.of());
        flush();
        int generation = sJoined.generationId();
        long start = now;
        assertThat(leave(new LeavingMember("", Optional.of("t")))).containsExactly(Errors.NONE);
        heartbeatWithoutJoining(s, Optional.of("s"), generation, start + REBALANCE_MS);

        now = start + REBALANCE_MS;
        tick();

        assertThat(describe().state())
                .as("no member joined: no generation to hand out")
                .isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(describe().generationId()).isEqualTo(generation);

        now += 1000;
        ClassicJoinResult late = done(join(request(s, Optional.of("s"), protocols("range"))));
        assertThat(late.generationId()).isEqualTo(generation + 1);
        assertThat(late.leaderId()).isEqualTo(s);
    }

    // ---------------------------------------------------------------------------------- SyncGroup

    @Test
    void followersWaitForTheLeaderAndTheAssignmentIsHandedOutOnlyOnceStored() {
        String a = stableAlone("a1");
        String b = joinSecond(a, 1);

        CompletableFuture<ClassicSyncResult> bSync = sync(b, 2, Map.of());
        assertThat(bSync).as("the leader has not synced").isNotDone();
        CompletableFuture<ClassicSyncResult> aSync = sync(a, 2, assign(a, "a2", b, "b2"));
        assertThat(aSync).as("not stored yet").isNotDone();
        assertThat(bSync).isNotDone();
        assertThat(describe().state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);

        List<StoreTask> tasks = coordinator.drainStores();
        assertThat(tasks).hasSize(1);
        Store task = (Store) tasks.getFirst();
        assertThat(task.completesSync()).isTrue();
        assertThat(task.record().generationId()).isEqualTo(2);
        assertThat(task.record().members())
                .extracting(m -> new String(m.assignment(), StandardCharsets.UTF_8))
                .containsExactlyInAnyOrder("a2", "b2");
        assertThat(aSync).as("drained but not yet durable").isNotDone();

        coordinator.stored(task, Optional.empty(), now);
        coordinator.checkInvariants();

        assertThat(done(aSync).assignment()).isEqualTo(bytes("a2"));
        assertThat(done(bSync).assignment()).isEqualTo(bytes("b2"));
        assertThat(done(bSync).protocolName()).contains("range");
        assertThat(describe().state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(done(sync(b, 2, Map.of())).assignment())
                .as("a SyncGroup again in Stable: the same assignment")
                .isEqualTo(bytes("b2"));
    }

    @Test
    void aFailedStoreAnswersTheWaitingSyncsWithItsErrorAndRebalances() {
        String a = stableAlone("a1");
        String b = joinSecond(a, 1);
        CompletableFuture<ClassicSyncResult> bSync = sync(b, 2, Map.of());
        CompletableFuture<ClassicSyncResult> aSync = sync(a, 2, assign(a, "a2", b, "b2"));

        StoreTask task = coordinator.drainStores().getFirst();
        coordinator.stored(task, Optional.of(Errors.COORDINATOR_NOT_AVAILABLE), now);
        coordinator.checkInvariants();

        assertThat(done(aSync).error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(done(bSync).error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(describe().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
    }

    @Test
    void theStoreOfAnEarlierGenerationDoesNotAnswerTheSyncsOfTheCurrentOne() {
        String a = stableAlone("a1");
        String b = joinSecond(a, 1);
        sync(a, 2, assign(a, "a2", b, "b2"));
        StoreTask second = coordinator.drainStores().getFirst();
        // Another member joins before generation 2 is stored: generation 3.
        String c = memberId();
        CompletableFuture<ClassicJoinResult> cJoin = join(request(c));
        CompletableFuture<ClassicJoinResult> bJoin = join(request(b));
        done(join(request(a)));
        assertThat(done(cJoin).generationId()).isEqualTo(3);
        CompletableFuture<ClassicSyncResult> bSync = sync(b, 3, Map.of());
        CompletableFuture<ClassicSyncResult> aSync = sync(a, 3, assign(a, "a3", b, "b3", c, "c3"));
        assertThat(done(bJoin).generationId()).isEqualTo(3);

        apply(second);
        coordinator.stored(second, Optional.empty(), now);
        coordinator.checkInvariants();

        assertThat(bSync).as("generation 3 is not stored yet").isNotDone();
        assertThat(aSync).isNotDone();
        assertThat(describe().state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);

        flush();
        assertThat(done(bSync).assignment()).isEqualTo(bytes("b3"));
    }

    @Test
    void aWrongGenerationIsIllegalForSyncAndHeartbeat() {
        String a = stableAlone("a1");

        assertError(Errors.ILLEGAL_GENERATION, () -> sync(a, 2, Map.of()));
        assertError(Errors.ILLEGAL_GENERATION, () -> sync(a, 0, Map.of()));
        assertError(Errors.ILLEGAL_GENERATION, () -> heartbeat(a, 2));
        assertError(Errors.ILLEGAL_GENERATION, () -> heartbeat(a, -1));
        heartbeat(a, 1);
    }

    @Test
    void syncAndHeartbeatWhilePreparingARebalanceAreToldTheRebalanceIsInProgress() {
        String a = stableAlone("a1");
        join(request(memberId()));

        assertError(Errors.REBALANCE_IN_PROGRESS, () -> sync(a, 1, Map.of()));
        assertError(Errors.REBALANCE_IN_PROGRESS, () -> heartbeat(a, 1));
    }

    @Test
    void aMemberThatNeverSyncsIsRemovedAfterTheRebalanceTimeout() {
        String a = stableAlone("a1");
        String b = joinSecond(a, 1);
        long completed = now;
        sync(a, 2, assign(a, "a2", b, "b2"));
        flush();
        assertThat(describe().state()).isEqualTo(ClassicGroupState.STABLE);

        // b heartbeats (so its session holds) but never syncs.
        while (now < completed + REBALANCE_MS - 1) {
            now = Math.min(now + 5000, completed + REBALANCE_MS - 1);
            heartbeat(a, 2);
            heartbeat(b, 2);
            assertThat(tick()).isZero();
        }
        now = completed + REBALANCE_MS;
        assertThat(tick()).isEqualTo(1);

        assertError(Errors.UNKNOWN_MEMBER_ID, () -> heartbeat(b, 2));
        assertError(Errors.REBALANCE_IN_PROGRESS, () -> heartbeat(a, 2));
    }

    @Test
    void aMemberSilentForItsSessionTimeoutIsRemovedAndTheGroupBecomesEmpty() {
        String a = stableAlone("a1");
        now += 4000;
        heartbeat(a, 1);
        long heard = now;

        now = heard + SESSION_MS;
        assertThat(tick()).as("exactly at the deadline it is still in").isZero();
        now += 1;
        assertThat(tick()).isEqualTo(1);

        assertThat(describe().state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(describe().generationId()).isEqualTo(2);
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> heartbeat(a, 1));
    }

    @Test
    void aSurvivorsHeartbeatAfterAnotherSessionRanOutIsToldToRejoinBeforeAnyTick() {
        String[] pair = stablePair();
        String a = pair[0];
        String b = pair[1];
        heartbeat(a, 2);
        now += 1000;
        heartbeat(b, 2);
        long aHeard = now - 1000;

        now = aHeard + SESSION_MS;
        heartbeat(b, 2);
        assertThat(describe().state())
                .as("a's session holds up to its deadline")
                .isEqualTo(ClassicGroupState.STABLE);
        now += 1;
        // no tick since: b's heartbeat runs the group's due timers first, as Kafka's per-member timer
        assertError(Errors.REBALANCE_IN_PROGRESS, () -> heartbeat(b, 2));
        assertThat(describe().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(describe().members()).hasSize(1);
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> heartbeat(a, 2));
        assertThat(tick()).as("the tick finds nothing left to do").isZero();
    }

    // ---------------------------------------------------------------------------------- LeaveGroup

    @Test
    void membersLeaveByMemberIdAndAnUnknownOneIsAnsweredForItself() {
        String[] pair = stablePair();
        String a = pair[0];
        String b = pair[1];

        assertThat(leave(new LeavingMember(b, Optional.empty()), new LeavingMember("made-up", Optional.empty())))
                .containsExactly(Errors.NONE, Errors.UNKNOWN_MEMBER_ID);

        assertThat(describe().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> heartbeat(b, 2));
        ClassicJoinResult alone = done(join(request(a)));
        assertThat(alone.generationId()).isEqualTo(3);
        assertThat(alone.members())
                .extracting(ClassicJoinResult.JoinedMember::memberId)
                .containsExactly(a);
    }

    @Test
    void aStaticMemberLeavesByItsInstanceIdAndAWrongMemberIdIsFenced() {
        String a = stableAlone("a1");
        CompletableFuture<ClassicJoinResult> sJoin = join(request("", Optional.of("s"), protocols("range")));
        CompletableFuture<ClassicJoinResult> tJoin = join(request("", Optional.of("t"), protocols("range")));
        done(join(request(a)));
        String s = done(sJoin).memberId();
        String t = done(tJoin).memberId();

        assertThat(leave(
                        new LeavingMember("wrong", Optional.of("s")),
                        new LeavingMember("", Optional.of("unknown")),
                        new LeavingMember(t, Optional.of("t")),
                        new LeavingMember("", Optional.of("s"))))
                .containsExactly(Errors.FENCED_INSTANCE_ID, Errors.UNKNOWN_MEMBER_ID, Errors.NONE, Errors.NONE);

        assertThat(describe().members())
                .extracting(ClassicGroupDescription.Member::memberId)
                .containsExactly(a);
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> heartbeat(s, Optional.of("s"), 2));
    }

    @Test
    void theLastMemberLeavingEmptiesTheGroupAtTheNextGenerationAndStoresThat() {
        String a = stableAlone("a1");
        flush();

        assertThat(leave(new LeavingMember(a, Optional.empty()))).containsExactly(Errors.NONE);

        ClassicGroupDescription group = describe();
        assertThat(group.state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(group.generationId()).isEqualTo(2);
        assertThat(group.protocolType()).as("kept").isEqualTo("consumer");
        List<StoreTask> tasks = coordinator.drainStores();
        assertThat(tasks).singleElement().isInstanceOfSatisfying(Store.class, s -> {
            assertThat(s.completesSync()).isFalse();
            assertThat(s.record().generationId()).isEqualTo(2);
            assertThat(s.record().members()).isEmpty();
            assertThat(s.record().leaderId()).isEmpty();
        });
    }

    // ---------------------------------------------------------------------------------- static members

    /** a (dynamic, leader) and s (static) Stable at generation 2 with assignments a2 and s2. */
    private String[] leaderAndStatic(boolean staticLeads) {
        String first;
        String second;
        if (staticLeads) {
            first = done(join(request("", Optional.of("s"), protocols("range", "roundrobin"))))
                    .memberId();
            String a = memberId();
            CompletableFuture<ClassicJoinResult> aJoin =
                    join(request(a, Optional.empty(), protocols("range", "roundrobin")));
            done(join(request(first, Optional.of("s"), protocols("range", "roundrobin"))));
            second = done(aJoin).memberId();
            sync(second, 2, Map.of());
            sync(first, Optional.of("s"), 2, assign(first, "s2", second, "a2"));
            flush();
            return new String[] {second, first};
        }
        first = memberId();
        done(join(request(first, Optional.empty(), protocols("range", "roundrobin"))));
        CompletableFuture<ClassicJoinResult> sJoin =
                join(request("", Optional.of("s"), protocols("range", "roundrobin")));
        done(join(request(first, Optional.empty(), protocols("range", "roundrobin"))));
        second = done(sJoin).memberId();
        sync(second, Optional.of("s"), 2, Map.of());
        sync(first, 2, assign(first, "a2", second, "s2"));
        flush();
        return new String[] {first, second};
    }

    @Test
    void aStaticMemberJoiningAgainInStableTakesItsPlaceUnderANewIdWithoutARebalance() {
        String[] ids = leaderAndStatic(false);
        String a = ids[0];
        String oldS = ids[1];

        ClassicJoinResult again = done(join(request("", Optional.of("s"), protocols("range", "roundrobin"))));

        assertThat(again.error()).isEqualTo(Errors.NONE);
        assertThat(again.generationId()).as("no rebalance").isEqualTo(2);
        assertThat(again.memberId()).startsWith("s-").isNotEqualTo(oldS);
        assertThat(again.leaderId()).isEqualTo(a);
        assertThat(again.members()).isEmpty();
        assertThat(again.skipAssignment()).isFalse();
        assertThat(describe().state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(coordinator.drainStores())
                .as("the new member id is stored")
                .singleElement()
                .isInstanceOfSatisfying(
                        Store.class,
                        s -> assertThat(s.record().members())
                                .extracting(ClassicGroupRecord.Member::memberId)
                                .contains(again.memberId())
                                .doesNotContain(oldS));

        assertError(Errors.FENCED_INSTANCE_ID, () -> heartbeat(oldS, Optional.of("s"), 2));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> heartbeat(oldS, Optional.empty(), 2));
        assertError(Errors.FENCED_INSTANCE_ID, () -> sync(oldS, Optional.of("s"), 2, Map.of()));
        assertError(Errors.FENCED_INSTANCE_ID, () -> join(request(oldS, Optional.of("s"), protocols("range"))));
        heartbeat(again.memberId(), Optional.of("s"), 2);
        heartbeat(a, 2);
        assertThat(done(sync(again.memberId(), Optional.of("s"), 2, Map.of())).assignment())
                .as("its previous assignment")
                .isEqualTo(bytes("s2"));
    }

    @Test
    void aStaticLeaderJoiningAgainInStableIsToldToSkipTheAssignment() {
        String[] ids = leaderAndStatic(true);
        String s = ids[1];

        ClassicJoinResult again = done(join(request("", Optional.of("s"), protocols("range", "roundrobin"))));

        assertThat(again.generationId()).isEqualTo(2);
        assertThat(again.leaderId()).isEqualTo(again.memberId()).isNotEqualTo(s);
        assertThat(again.skipAssignment()).isTrue();
        assertThat(again.members()).hasSize(2);
        assertThat(describe().state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(done(sync(again.memberId(), Optional.of("s"), 2, Map.of())).assignment())
                .isEqualTo(bytes("s2"));
    }

    @Test
    void aStaticMemberJoiningAgainWithProtocolsThatChangeTheSelectionRebalances() {
        String[] ids = leaderAndStatic(false);
        String a = ids[0];

        CompletableFuture<ClassicJoinResult> again = join(request("", Optional.of("s"), protocols("roundrobin")));

        assertThat(again).isNotDone();
        assertThat(describe().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        ClassicJoinResult aJoined = done(join(request(a, Optional.empty(), protocols("range", "roundrobin"))));
        assertThat(aJoined.generationId()).isEqualTo(3);
        assertThat(aJoined.protocolName()).contains("roundrobin");
        assertThat(done(again).generationId()).isEqualTo(3);
    }

    // ---------------------------------------------------------------------------------- offsets, describe, delete

    @Test
    void commitsFollowTheClassicRules() {
        assertThat(coordinator.validateCommit(GROUP, "", -1, Optional.empty()))
                .as("not a classic group here")
                .isEmpty();
        String a = stableAlone("a1");

        assertThat(coordinator.validateCommit(GROUP, a, 1, Optional.empty())).contains(Committer.MEMBER);
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.validateCommit(GROUP, "", -1, Optional.empty()));
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.validateCommit(GROUP, "made-up", 1, Optional.empty()));
        assertError(Errors.ILLEGAL_GENERATION, () -> coordinator.validateCommit(GROUP, a, 0, Optional.empty()));
        assertError(Errors.ILLEGAL_GENERATION, () -> coordinator.validateCommit(GROUP, a, -1, Optional.empty()));
        assertError(Errors.ILLEGAL_GENERATION, () -> coordinator.validateCommit(GROUP, a, 2, Optional.empty()));

        String b = memberId();
        CompletableFuture<ClassicJoinResult> bJoin = join(request(b));
        assertThat(coordinator.validateCommit(GROUP, a, 1, Optional.empty()))
                .as("accepted while preparing a rebalance, at the current generation")
                .contains(Committer.MEMBER);
        done(join(request(a)));
        assertThat(done(bJoin).generationId()).isEqualTo(2);
        assertError(Errors.REBALANCE_IN_PROGRESS, () -> coordinator.validateCommit(GROUP, a, 2, Optional.empty()));
        assertError(Errors.ILLEGAL_GENERATION, () -> coordinator.validateCommit(GROUP, a, 1, Optional.empty()));

        leave(new LeavingMember(a, Optional.empty()), new LeavingMember(b, Optional.empty()));
        assertThat(describe().state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(coordinator.validateCommit(GROUP, "", -1, Optional.empty()))
                .as("an admin commit into the empty group")
                .contains(Committer.ADMIN);
        assertError(Errors.UNKNOWN_MEMBER_ID, () -> coordinator.validateCommit(GROUP, a, 2, Optional.empty()));
    }

    @Test
    void describeShowsMetadataAndTheProtocolOnlyWhileStable() {
        String a = stableAlone("a1");
        ClassicGroupDescription stable = describe();
        assertThat(stable.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(stable.protocolName()).isEqualTo("range");
        assertThat(stable.leaderId()).isEqualTo(a);
        assertThat(stable.members()).singleElement().satisfies(m -> {
            assertThat(m.metadata()).isEqualTo(bytes("meta-range"));
            assertThat(m.assignment()).isEqualTo(bytes("a1"));
            assertThat(m.clientHost()).isEqualTo("/127.0.0.1");
        });

        String b = memberId();
        join(request(b));
        ClassicGroupDescription preparing = describe();
        assertThat(preparing.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(preparing.protocolName()).isEmpty();
        assertThat(preparing.members())
                .hasSize(2)
                .allSatisfy(m -> assertThat(m.metadata()).isEmpty());

        done(join(request(a)));
        ClassicGroupDescription completing = describe();
        assertThat(completing.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(completing.protocolName()).isEmpty();
        assertThat(completing.members())
                .hasSize(2)
                .allSatisfy(m -> assertThat(m.metadata()).isEmpty());
        assertThat(coordinator.describeAll()).containsOnlyKeys(GROUP);
    }

    @Test
    void onlyAnEmptyGroupIsDeletedAndItsStoredStateDeletedWithIt() {
        assertThat(coordinator.delete(GROUP)).as("not a classic group here").isFalse();
        String a = stableAlone("a1");
        flush();
        assertError(Errors.NON_EMPTY_GROUP, () -> coordinator.delete(GROUP));

        leave(new LeavingMember(a, Optional.empty()));
        flush();
        assertThat(coordinator.delete(GROUP)).isTrue();

        assertThat(coordinator.contains(GROUP)).isFalse();
        assertThat(coordinator.drainStores()).containsExactly(new Delete(GROUP));
    }

    // ---------------------------------------------------------------------------------- failover

    @Test
    void storedGroupsLoadStableAtTheirGenerationAndTheirMembersCarryOn() {
        String[] pair = stablePair();
        String a = pair[0];
        String b = pair[1];
        Map<String, ClassicGroupRecord> stored = store.load();

        coordinator = coordinator(NO_DELAY);
        now += 60_000;
        coordinator.load(stored.values(), now);
        coordinator.checkInvariants();

        ClassicGroupDescription group = describe();
        assertThat(group.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(group.generationId()).isEqualTo(2);
        assertThat(group.leaderId()).isEqualTo(a);
        heartbeat(a, 2);
        heartbeat(b, 2);
        assertError(Errors.ILLEGAL_GENERATION, () -> heartbeat(b, 1));
        assertThat(done(sync(b, 2, Map.of())).assignment()).isEqualTo(bytes("b2"));
        assertThat(coordinator.validateCommit(GROUP, b, 2, Optional.empty())).contains(Committer.MEMBER);

        now += SESSION_MS + 1;
        assertThat(tick()).as("their sessions go on at the new leader").isEqualTo(2);
    }

    @Test
    void anEmptyStoredGroupLoadsEmptyAtItsGeneration() {
        String a = stableAlone("a1");
        leave(new LeavingMember(a, Optional.empty()));
        flush();

        coordinator = coordinator(NO_DELAY);
        coordinator.load(store.load().values(), now);

        assertThat(describe().state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(describe().generationId()).isEqualTo(2);
        assertThat(done(join(request(memberId()))).generationId()).isEqualTo(3);
    }

    @Test
    void clearAnswersWaitingJoinsAndSyncsWithNotCoordinator() {
        String a = stableAlone("a1");
        String b = joinSecond(a, 1);
        CompletableFuture<ClassicSyncResult> bSync = sync(b, 2, Map.of());
        ClassicJoin other = first("h", "consumer", protocols("range"), SESSION_MS, REBALANCE_MS, false);
        String h = done(coordinator.join(other, now)).memberId();
        coordinator.sync("h", h, Optional.empty(), 1, Optional.empty(), Map.of(), now);
        coordinator.drainStores().forEach(task -> coordinator.stored(task, Optional.empty(), now));
        CompletableFuture<ClassicJoinResult> hJoin = coordinator.join(other, now);
        assertThat(hJoin).isNotDone();

        coordinator.clear();

        assertThat(done(bSync).error()).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(done(hJoin).error()).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(coordinator.groupCount()).isZero();
        assertThat(coordinator.drainStores()).isEmpty();
    }
}
