package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.ClassicProtocol;
import io.tributary.coordinator.group.ConsumerMigrationPolicy;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.HeartbeatRequest;
import io.tributary.coordinator.group.HeartbeatResponse;
import io.tributary.coordinator.group.InMemoryConsumerGroupStore;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.TopicIdPartition;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.LeavingMember;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.ProtocolCheck;
import io.tributary.coordinator.group.classic.ClassicGroupState;
import io.tributary.coordinator.group.classic.ClassicJoinResult;
import io.tributary.coordinator.group.classic.ClassicSyncResult;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
import io.tributary.coordinator.group.streams.StreamsGroupConfig;
import io.tributary.coordinator.group.streams.StreamsGroupCoordinator;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Mixed groups through {@link GroupService} (Kafka 4.4's online migration): a KIP-848 member
 * upgrading a classic group, classic members served inside a consumer group, and the downgrade
 * when the last KIP-848 member leaves.
 */
class MixedGroupsTest {

    private static final ClassicGroupConfig CLASSIC =
            ClassicGroupConfig.DEFAULTS.withInitialRebalanceDelay(Duration.ZERO);

    private final FakeTopics topics = new FakeTopics();
    private final AtomicLong nowMs =
            new AtomicLong(Instant.parse("2027-01-01T00:00:00Z").toEpochMilli());
    private final InMemoryClassicGroupStore classicStore = new InMemoryClassicGroupStore();
    private final InMemoryConsumerGroupStore consumerStore = new InMemoryConsumerGroupStore();
    private final AtomicLong term = new AtomicLong(1);

    private GroupService service = service(ConsumerMigrationPolicy.BIDIRECTIONAL);

    private GroupService service(ConsumerMigrationPolicy policy) {
        GroupService created = new GroupService(
                new GroupCoordinator(GroupConfig.DEFAULTS, topics),
                new ClassicGroupCoordinator(CLASSIC, UUID::randomUUID),
                new StreamsGroupCoordinator(GroupConfig.DEFAULTS, StreamsGroupConfig.DEFAULTS, topics),
                new InMemoryOffsetStore(),
                classicStore,
                consumerStore,
                internal -> {},
                topics,
                () -> true,
                term::get,
                (InstantSource) () -> Instant.ofEpochMilli(nowMs.get()),
                policy);
        created.requireLeader();
        return created;
    }

    // ------------------------------------------------------------------------------------------
    // Requests

    private static byte[] subscription(List<TopicPartition> owned) {
        return bytes(ConsumerProtocol.serializeSubscription(new Subscription(List.of("t"), null, owned)));
    }

    private static byte[] assignment(List<TopicPartition> partitions, ByteBuffer userData) {
        return bytes(ConsumerProtocol.serializeAssignment(new Assignment(partitions, userData)));
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }

    private static ClassicJoin classicJoin(String memberId, List<TopicPartition> owned, String protocolType) {
        return classicJoin(memberId, Optional.empty(), owned, protocolType);
    }

    private static ClassicJoin classicJoin(
            String memberId, Optional<String> instanceId, List<TopicPartition> owned, String protocolType) {
        return new ClassicJoin(
                "g",
                memberId,
                instanceId,
                protocolType,
                List.of(new ClassicProtocol("range", subscription(owned))),
                10_000,
                30_000,
                "client",
                "/127.0.0.1",
                true,
                true);
    }

    private ClassicJoinResult join(ClassicJoin join) {
        var answer = service.joinClassic(join);
        service.flushClassicStores();
        service.tick(); // a classic group's join barrier completes on the tick
        return answer.join();
    }

    /** A classic member joins (MEMBER_ID_REQUIRED first) and returns its join answer. */
    private ClassicJoinResult joinClassic(List<TopicPartition> owned) {
        ClassicJoinResult first = join(classicJoin("", owned, "consumer"));
        assertThat(first.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        return join(classicJoin(first.memberId(), owned, "consumer"));
    }

    private ClassicSyncResult sync(ClassicJoinResult joined, Map<String, byte[]> assignments) {
        var answer = service.syncClassic(
                "g",
                joined.memberId(),
                Optional.empty(),
                joined.generationId(),
                Optional.of(new ProtocolCheck(Optional.of("consumer"), joined.protocolName())),
                assignments);
        service.flushClassicStores();
        return answer.join();
    }

    private static HeartbeatRequest consumerHeartbeat(String memberId, int epoch, SortedSet<TopicIdPartition> owned) {
        return consumerHeartbeat(memberId, Optional.empty(), epoch, owned);
    }

    private static HeartbeatRequest consumerHeartbeat(
            String memberId, Optional<String> instanceId, int epoch, SortedSet<TopicIdPartition> owned) {
        return new HeartbeatRequest(
                "g",
                memberId,
                epoch,
                instanceId,
                Optional.empty(),
                epoch == 0 ? 30_000 : -1,
                epoch == 0 ? Optional.of(List.of("t")) : Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(owned),
                "c",
                "h");
    }

    private Errors classicHeartbeat(ClassicJoinResult joined) {
        try {
            service.heartbeatClassic("g", joined.memberId(), Optional.empty(), joined.generationId());
            return Errors.NONE;
        } catch (GroupException e) {
            return e.error();
        }
    }

    private static Errors errorOf(Runnable request) {
        try {
            request.run();
            return Errors.NONE;
        } catch (GroupException e) {
            return e.error();
        }
    }

    private static List<TopicPartition> partitions(byte[] assignment) {
        return ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(assignment))
                .partitions();
    }

    /** A Stable classic group of one member A owning both partitions of t. */
    private ClassicJoinResult stableClassicGroup(ByteBuffer userData) {
        topics.create("t", 2);
        ClassicJoinResult a = joinClassic(List.of());
        assertThat(a.error()).isEqualTo(Errors.NONE);
        List<TopicPartition> both = List.of(new TopicPartition("t", 0), new TopicPartition("t", 1));
        ClassicSyncResult synced = sync(a, Map.of(a.memberId(), assignment(both, userData)));
        assertThat(synced.error()).isEqualTo(Errors.NONE);
        return a;
    }

    // ------------------------------------------------------------------------------------------
    // Upgrade

    @Test
    void aKip848JoinConvertsAClassicGroupWhoseMembersKeepTheirGenerationAndAssignment() {
        ClassicJoinResult a = stableClassicGroup(null);

        HeartbeatResponse x = service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));

        assertThat(service.classic().contains("g")).isFalse();
        assertThat(service.groups().hasMembers("g")).isTrue();
        assertThat(classicStore.load())
                .as("the classic generation's stored state is deleted")
                .doesNotContainKey("g");
        assertThat(consumerStore.load().get("g").members()).containsKeys(a.memberId(), "x");
        assertThat(x.assignment().orElseThrow())
                .as("A still owns both partitions: X waits for one")
                .isEmpty();
        assertThat(service.groups().describe("g").orElseThrow().members().stream()
                        .filter(m -> m.memberId().equals(a.memberId()))
                        .findFirst()
                        .orElseThrow()
                        .memberEpoch())
                .as("A's epoch is its generation")
                .isEqualTo(a.generationId());
        assertThat(classicHeartbeat(a))
                .as("A must join again to give a partition up")
                .isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    }

    @Test
    void classicAndKip848MembersShareThePartitionsAfterTheUpgradeWithoutTwoOwners() {
        ClassicJoinResult a = stableClassicGroup(null);
        service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));
        TopicPartition p0 = new TopicPartition("t", 0);
        TopicPartition p1 = new TopicPartition("t", 1);

        // A (cooperative) joins again still owning both: it is told to keep one and revoke the other.
        ClassicJoinResult rejoined = join(classicJoin(a.memberId(), List.of(p0, p1), "consumer"));
        assertThat(rejoined.error()).isEqualTo(Errors.NONE);
        assertThat(rejoined.leaderId()).isEmpty();
        assertThat(rejoined.members()).isEmpty();
        assertThat(rejoined.protocolName()).contains("range");
        List<TopicPartition> kept = partitions(sync(rejoined, Map.of()).assignment());
        assertThat(kept).hasSize(1);
        assertThat(classicHeartbeat(rejoined)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);

        // It joins again without the revoked one: now at the new epoch.
        ClassicJoinResult third = join(classicJoin(a.memberId(), kept, "consumer"));
        assertThat(third.generationId()).isGreaterThan(rejoined.generationId());
        assertThat(partitions(sync(third, Map.of()).assignment())).isEqualTo(kept);
        assertThat(classicHeartbeat(third)).isEqualTo(Errors.NONE);

        HeartbeatResponse x = service.heartbeatConsumer(consumerHeartbeat(
                "x", service.groups().describe("g").orElseThrow().groupEpoch(), new TreeSet<>()));
        assertThat(x.assignment().orElseThrow()).hasSize(1);
        service.groups().checkInvariants();
        Set<TopicPartition> all = new HashSet<>(kept);
        topics.byName("t")
                .ifPresent(info ->
                        x.assignment().orElseThrow().forEach(p -> all.add(new TopicPartition("t", p.partition()))));
        assertThat(all).containsExactlyInAnyOrder(p0, p1);
    }

    @Test
    void aMixedGroupsClassicMemberCarriesOnAcrossACoordinatorFailover() {
        ClassicJoinResult a = stableClassicGroup(null);
        service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));
        ClassicJoinResult rejoined = join(
                classicJoin(a.memberId(), List.of(new TopicPartition("t", 0), new TopicPartition("t", 1)), "consumer"));
        List<TopicPartition> kept = partitions(sync(rejoined, Map.of()).assignment());

        term.set(2);
        service.requireLeader(); // a new term: the groups are loaded from the store

        assertThat(classicHeartbeat(rejoined))
                .as("still a classic member (its classic metadata was stored), still revoking")
                .isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(partitions(sync(rejoined, Map.of()).assignment())).isEqualTo(kept);
        ClassicJoinResult third = join(classicJoin(a.memberId(), kept, "consumer"));
        assertThat(third.protocolName()).contains("range");
        assertThat(third.generationId()).isGreaterThan(rejoined.generationId());
    }

    @Test
    void aClassicGroupWhoseAssignmentCarriesUserDataIsNotUpgraded() {
        stableClassicGroup(ByteBuffer.wrap(new byte[] {1, 2, 3}));

        assertThat(errorOf(() -> service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()))))
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(service.classic().hasMembers("g")).isTrue();
        assertThat(service.groups().contains("g")).isFalse();
    }

    @Test
    void aClassicGroupWhoseOnlyMemberStillConfirmsItsIdIsEmptyAndAKip848JoinReplacesIt() {
        topics.create("t", 2);
        assertThat(join(classicJoin("", List.of(), "consumer")).error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(service.classic().hasMembers("g")).isTrue();

        HeartbeatResponse x = service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));

        assertThat(x.assignment().orElseThrow()).hasSize(2);
        assertThat(service.classic().contains("g")).isFalse();
        assertThat(errorOf(() -> service.heartbeatConsumer(consumerHeartbeat("y", 5, new TreeSet<>()))))
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void withoutTheUpgradePolicyAClassicGroupWithMembersIsNotAConsumerGroup() {
        service = service(ConsumerMigrationPolicy.DOWNGRADE);
        stableClassicGroup(null);

        assertThat(errorOf(() -> service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()))))
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(service.classic().hasMembers("g")).isTrue();
    }

    @Test
    void anUpgradeAnswersTheJoinsWaitingInTheClassicGroupWithRebalanceInProgress() {
        ClassicJoinResult a = stableClassicGroup(null);
        // B's join starts a rebalance; A has not joined again, so B waits at the barrier.
        ClassicJoinResult bId = join(classicJoin("", List.of(), "consumer"));
        var waiting = service.joinClassic(classicJoin(bId.memberId(), List.of(), "consumer"));
        assertThat(waiting).isNotDone();

        service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));

        assertThat(waiting.join().error()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(classicHeartbeat(a)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    }

    // ------------------------------------------------------------------------------------------
    // Classic members inside a consumer group

    @Test
    void aClassicMemberJoinsAConsumerGroupWithMembersAsKafkaAnswers() {
        topics.create("t", 2);
        service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));

        assertThat(errorOf(() -> join(classicJoin("", List.of(), "other"))))
                .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        ClassicJoinResult first = join(classicJoin("", List.of(), "consumer"));
        assertThat(first.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(first.memberId()).hasSize(22); // Kafka's member id: a base64 Uuid
        ClassicJoinResult a = join(classicJoin(first.memberId(), List.of(), "consumer"));

        assertThat(a.error()).isEqualTo(Errors.NONE);
        assertThat(a.protocolType()).contains("consumer");
        assertThat(a.generationId())
                .isEqualTo(service.groups().describe("g").orElseThrow().groupEpoch());
        assertThat(service.classic().contains("g")).isFalse();
        assertThat(errorOf(() -> sync(
                                new ClassicJoinResult(
                                        Errors.NONE,
                                        a.generationId() + 1,
                                        a.protocolType(),
                                        a.protocolName(),
                                        "",
                                        a.memberId(),
                                        false,
                                        List.of()),
                                Map.of())
                        .error()))
                .isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(sync(a, Map.of()).error()).isEqualTo(Errors.NONE);
        assertThat(service.groups().describe("g").orElseThrow().members())
                .as("ConsumerGroupDescribe's member type: A classic, x KIP-848")
                .allSatisfy(m -> assertThat(m.classic().isPresent())
                        .isEqualTo(m.memberId().equals(a.memberId())));
        assertThat(errorOf(() -> service.heartbeatClassic("g", "x", Optional.empty(), a.generationId())))
                .as("a KIP-848 member is unknown to the classic protocol")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aClassicMemberThatDoesNotJoinAgainWithinItsRebalanceTimeoutIsRemoved() {
        ClassicJoinResult a = stableClassicGroup(null);
        service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));
        assertThat(classicHeartbeat(a)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);

        nowMs.addAndGet(9_000); // within its 10 s session, past nothing yet
        service.tick();
        assertThat(service.groups().describe("g").orElseThrow().members()).hasSize(2);
        service.heartbeatConsumer(consumerHeartbeat(
                "x",
                service.groups().describe("g").orElseThrow().members().stream()
                        .filter(m -> m.memberId().equals("x"))
                        .findFirst()
                        .orElseThrow()
                        .memberEpoch(),
                new TreeSet<>()));
        assertThat(classicHeartbeat(a)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        nowMs.addAndGet(22_000); // past its 30 s rebalance timeout from the first REBALANCE_IN_PROGRESS
        service.tick();

        assertThat(service.groups().describe("g").orElseThrow().members())
                .extracting(m -> m.memberId())
                .containsExactly("x");
    }

    @Test
    void aClassicMemberCommitsAtItsMemberEpochWithAnyVersion() {
        ClassicJoinResult a = stableClassicGroup(null);
        service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));

        var committer =
                service.groups().validateCommit("g", a.memberId(), a.generationId(), Optional.empty(), Set.of());
        assertThat(committer).isEqualTo(GroupCoordinator.Committer.CLASSIC_MEMBER);
        assertThat(errorOf(() -> service.groups()
                        .validateCommit("g", a.memberId(), a.generationId() - 1, Optional.empty(), Set.of())))
                .isEqualTo(Errors.ILLEGAL_GENERATION);
    }

    // ------------------------------------------------------------------------------------------
    // Downgrade

    @Test
    void whenTheLastKip848MemberLeavesTheClassicMembersGetAClassicGroupThatRebalances() {
        ClassicJoinResult a = stableClassicGroup(null);
        service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));
        int epoch = service.groups().describe("g").orElseThrow().groupEpoch();

        service.heartbeatConsumer(consumerHeartbeat("x", HeartbeatRequest.LEAVE_EPOCH, new TreeSet<>()));

        assertThat(service.groups().contains("g")).isFalse();
        assertThat(consumerStore.load()).doesNotContainKey("g");
        assertThat(service.classic().describe("g").orElseThrow().state())
                .isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(classicStore.load().get("g").generationId()).isEqualTo(epoch);
        ClassicJoinResult atEpoch = new ClassicJoinResult(
                Errors.NONE, epoch, a.protocolType(), a.protocolName(), "", a.memberId(), false, List.of());
        assertThat(classicHeartbeat(atEpoch)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);

        ClassicJoinResult rejoined = join(classicJoin(a.memberId(), List.of(), "consumer"));
        assertThat(rejoined.error()).isEqualTo(Errors.NONE);
        assertThat(rejoined.generationId()).isEqualTo(epoch + 1);
        assertThat(rejoined.leaderId()).isEqualTo(a.memberId());
    }

    @Test
    void aClassicStaticMemberReplacingTheLastKip848OneDowngradesTheGroup() {
        stableClassicGroup(null);
        service.heartbeatConsumer(consumerHeartbeat("x", Optional.of("i"), 0, new TreeSet<>()));

        ClassicJoinResult replacing = join(classicJoin("", Optional.of("i"), List.of(), "consumer"));

        assertThat(replacing.error()).isEqualTo(Errors.NONE);
        assertThat(service.groups().contains("g")).isFalse();
        assertThat(service.classic().describe("g").orElseThrow().members())
                .extracting(m -> m.instanceId().orElse(""))
                .contains("i");
        assertThat(classicHeartbeat(replacing))
                .as("a member of the classic group, which rebalances")
                .isIn(Errors.REBALANCE_IN_PROGRESS, Errors.ILLEGAL_GENERATION);
    }

    @Test
    void withoutTheDowngradePolicyTheClassicMembersStayInTheConsumerGroup() {
        service = service(ConsumerMigrationPolicy.UPGRADE);
        stableClassicGroup(null);
        service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));

        service.heartbeatConsumer(consumerHeartbeat("x", HeartbeatRequest.LEAVE_EPOCH, new TreeSet<>()));

        assertThat(service.groups().hasMembers("g")).isTrue();
        assertThat(service.classic().contains("g")).isFalse();
    }

    @Test
    void aClassicLeaveNamesEachMemberAndAKip848MemberIsUnknownToIt() {
        ClassicJoinResult a = stableClassicGroup(null);
        service.heartbeatConsumer(consumerHeartbeat("x", 0, new TreeSet<>()));

        List<Errors> errors = service.leaveClassic(
                "g",
                new ArrayList<>(List.of(
                        new LeavingMember("x", Optional.empty()),
                        new LeavingMember(a.memberId(), Optional.empty()),
                        new LeavingMember("nobody", Optional.empty()))));

        assertThat(errors).containsExactly(Errors.UNKNOWN_MEMBER_ID, Errors.NONE, Errors.UNKNOWN_MEMBER_ID);
        assertThat(service.groups().describe("g").orElseThrow().members())
                .extracting(m -> m.memberId())
                .containsExactly("x");
    }
}
