package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.ClassicProtocol;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.Heartbeats;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.OffsetRetention;
import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.LeavingMember;
import io.tributary.coordinator.group.classic.ClassicJoinResult;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
import io.tributary.coordinator.kafka.GroupService.Expired;
import io.tributary.coordinator.metadata.TopicPartition;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Offsets retention through {@link GroupService#expireOffsets}: the group state machines, the
 * in-memory stores and a clock the test moves. What was deleted is read back from the stores.
 */
class GroupServiceRetentionTest {

    private static final Duration RETENTION = Duration.ofDays(7);
    private static final long RETENTION_MS = RETENTION.toMillis();
    /** The KIP-848 group of the tests ({@link Heartbeats}' group). */
    private static final String KIP848 = Heartbeats.GROUP;

    private static final long SESSION_MS = GroupConfig.DEFAULTS.sessionTimeout().toMillis();

    private final FakeTopics topics = new FakeTopics();
    private final InMemoryClassicGroupStore classicStore = new InMemoryClassicGroupStore();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final AtomicLong term = new AtomicLong(1);
    private final AtomicLong nowMs = new AtomicLong(1_900_000_000_000L);
    private final OffsetRetention retention = new OffsetRetention(RETENTION);
    private final HookedOffsetStore store = new HookedOffsetStore();
    private final GroupService service = InMemoryGroupServices.create(
            topics,
            store,
            classicStore,
            new ClassicGroupConfig(
                    Duration.ofSeconds(6),
                    Duration.ofMinutes(30),
                    Duration.ZERO,
                    Duration.ofMinutes(15),
                    1000,
                    10_000,
                    64 * 1024,
                    1000),
            leader::get,
            term::get,
            nowMs::get);

    /** An offset store whose {@link #beforeFetch} runs before every fetch (a commit racing a check). */
    private static final class HookedOffsetStore implements OffsetStore {
        final InMemoryOffsetStore delegate = new InMemoryOffsetStore();
        Runnable beforeFetch = () -> {};

        @Override
        public void commit(String groupId, Map<TopicPartition, CommittedOffset> offsets) throws OffsetStoreException {
            delegate.commit(groupId, offsets);
        }

        @Override
        public Map<TopicPartition, CommittedOffset> fetch(String groupId) {
            beforeFetch.run();
            return delegate.fetch(groupId);
        }

        @Override
        public Set<String> groups() {
            return delegate.groups();
        }

        @Override
        public void deleteGroup(String groupId) throws OffsetStoreException {
            delegate.deleteGroup(groupId);
        }

        @Override
        public void deleteOffsets(String groupId, Collection<TopicPartition> partitions) throws OffsetStoreException {
            delegate.deleteOffsets(groupId, partitions);
        }
    }

    @BeforeEach
    void takeOverAndWaitTheSessionTimeout() {
        topics.create("t", 2);
        topics.create("u", 2);
        service.requireLeader();
        advance(SESSION_MS);
    }

    private void advance(long ms) {
        nowMs.addAndGet(ms);
    }

    private void commit(String groupId, String topic, int partition) throws OffsetStoreException {
        store.commit(
                groupId, Map.of(new TopicPartition(topic, partition), new CommittedOffset(5, -1, "", nowMs.get())));
    }

    private Set<TopicPartition> offsetsOf(String groupId) {
        return new TreeSet<>(store.delegate.fetch(groupId).keySet());
    }

    private static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    /** One classic consumer member joins (no initial delay) and, as leader, syncs: Stable, stored. */
    private String joinClassic(String groupId, String... subscribed) throws Exception {
        ByteBuffer subscription = ConsumerProtocol.serializeSubscription(new Subscription(List.of(subscribed)));
        byte[] metadata = new byte[subscription.remaining()];
        subscription.get(metadata);
        ClassicJoinResult joined = service.joinClassic(new ClassicJoin(
                        groupId,
                        "",
                        Optional.empty(),
                        "consumer",
                        List.of(new ClassicProtocol("range", metadata)),
                        30_000,
                        30_000,
                        "c",
                        "h",
                        false,
                        true))
                .getNow(null);
        assertThat(joined).as("the join completes at once").isNotNull();
        var synced = service.classic()
                .sync(
                        groupId,
                        joined.memberId(),
                        Optional.empty(),
                        joined.generationId(),
                        Optional.empty(),
                        Map.of(joined.memberId(), new byte[0]),
                        nowMs.get());
        service.flushClassicStores();
        assertThat(synced).isCompleted();
        return joined.memberId();
    }

    private void leaveClassic(String groupId, String memberId) {
        service.classic().leave(groupId, List.of(new LeavingMember(memberId, Optional.empty())), nowMs.get());
        service.flushClassicStores();
    }

    // ------------------------------------------------------------------------------------------

    @Test
    void aSimpleGroupsOffsetsGoEachAtItsRetentionAndTheGroupWithTheLast() throws Exception {
        commit("simple", "t", 0);
        advance(Duration.ofDays(3).toMillis());
        commit("simple", "t", 1);
        advance(Duration.ofDays(4).toMillis() - 1);

        assertThat(service.expireOffsets(retention)).as("a millisecond early").isEmpty();
        advance(1);
        assertThat(service.expireOffsets(retention)).containsExactly(new Expired("simple", 1, false));
        assertThat(offsetsOf("simple")).containsExactly(tp("t", 1));

        advance(Duration.ofDays(3).toMillis());
        assertThat(service.expireOffsets(retention)).containsExactly(new Expired("simple", 1, true));
        assertThat(store.groups()).doesNotContain("simple");
    }

    @Test
    void aStableClassicGroupLosesOnlyTheOldOffsetsOfTopicsItDoesNotSubscribeTo() throws Exception {
        joinClassic("c", "t");
        commit("c", "t", 0);
        commit("c", "u", 0);
        advance(RETENTION_MS);

        assertThat(service.expireOffsets(retention)).containsExactly(new Expired("c", 1, false));
        assertThat(offsetsOf("c")).containsExactly(tp("t", 0));
        assertThat(service.classic().contains("c")).isTrue();
    }

    @Test
    void anEmptyClassicGroupLosesEverythingARetentionAfterItBecameEmptyAndIsDeletedWithItsRecord() throws Exception {
        String member = joinClassic("c", "t");
        commit("c", "t", 0);
        advance(Duration.ofDays(1).toMillis());
        leaveClassic("c", member);
        long emptySinceMs = nowMs.get();
        assertThat(classicStore.load().get("c").stateTimestampMs()).isEqualTo(emptySinceMs);
        advance(Duration.ofDays(6).toMillis());
        commit("c", "t", 1);
        advance(Duration.ofDays(1).toMillis() - 1);

        assertThat(service.expireOffsets(retention))
                .as("the 8-day-old commit stays while the group has been empty less than 7 days")
                .isEmpty();
        advance(1);
        assertThat(service.expireOffsets(retention))
                .as("a commit of yesterday goes with the rest")
                .containsExactly(new Expired("c", 2, true));
        assertThat(store.groups()).doesNotContain("c");
        assertThat(classicStore.load()).doesNotContainKey("c");
        assertThat(service.classic().contains("c")).isFalse();
    }

    @Test
    void aNewLeaderCountsFromWhenTheClassicGroupBecameEmptyNotFromWhenItTookOver() throws Exception {
        String member = joinClassic("c", "t");
        commit("c", "t", 0);
        leaveClassic("c", member);
        advance(RETENTION_MS - SESSION_MS);

        term.incrementAndGet();
        service.requireLeader();
        assertThat(service.classic().describe("c").orElseThrow().members())
                .as("loaded, Empty")
                .isEmpty();
        assertThat(service.expireOffsets(retention))
                .as("within a session timeout of taking over")
                .isEmpty();
        advance(SESSION_MS);

        assertThat(service.expireOffsets(retention)).containsExactly(new Expired("c", 1, true));
        assertThat(classicStore.load()).doesNotContainKey("c");
    }

    @Test
    void anEmptyClassicGroupWithoutOffsetsIsDeletedAtTheNextCheck() throws Exception {
        String member = joinClassic("c", "t");
        leaveClassic("c", member);

        assertThat(service.expireOffsets(retention)).containsExactly(new Expired("c", 0, true));
        assertThat(classicStore.load()).doesNotContainKey("c");
        assertThat(service.classic().contains("c")).isFalse();
    }

    @Test
    void aKip848GroupKeepsItsSubscribedTopicsWhileItHasMembersThenGoesByCommitTimestamps() throws Exception {
        service.heartbeatConsumer(Heartbeats.join("m", List.of("t")));
        commit(KIP848, "t", 0);
        commit(KIP848, "u", 0);
        advance(RETENTION_MS);

        assertThat(service.expireOffsets(retention)).containsExactly(new Expired(KIP848, 1, false));
        assertThat(offsetsOf(KIP848)).containsExactly(tp("t", 0));

        service.heartbeatConsumer(Heartbeats.leave("m", -1, Optional.empty()));
        assertThat(service.expireOffsets(retention))
                .as("Kafka's consumer groups count from each commit, not from when the group became empty")
                .containsExactly(new Expired(KIP848, 1, true));
        assertThat(service.groups().contains(KIP848)).isFalse();
    }

    @Test
    void nothingExpiresWithinASessionTimeoutOfANewTermSoKip848MembersCanComeBack() throws Exception {
        service.heartbeatConsumer(Heartbeats.join("m", List.of("t")));
        commit(KIP848, "t", 0);
        advance(RETENTION_MS);
        term.incrementAndGet();
        service.requireLeader();

        assertThat(service.expireOffsets(retention)).isEmpty();
        service.heartbeatConsumer(Heartbeats.join("m2", List.of("t")));
        advance(SESSION_MS);
        assertThat(service.expireOffsets(retention))
                .as("the member came back: its topic is protected")
                .isEmpty();
        assertThat(offsetsOf(KIP848)).containsExactly(tp("t", 0));
    }

    @Test
    void aFollowerExpiresNothing() throws Exception {
        commit("simple", "t", 0);
        advance(RETENTION_MS);
        leader.set(false);

        assertThat(service.expireOffsets(retention)).isEmpty();
        assertThat(offsetsOf("simple")).containsExactly(tp("t", 0));
    }

    @Test
    void anOffsetCommittedAgainWhileTheGroupIsJudgedIsKept() throws Exception {
        commit("simple", "t", 0);
        commit("simple", "t", 1);
        advance(RETENTION_MS);
        int[] fetches = {0};
        store.beforeFetch = () -> {
            if (++fetches[0] == 2) {
                try {
                    commit("simple", "t", 1);
                } catch (OffsetStoreException e) {
                    throw new AssertionError(e);
                }
            }
        };

        assertThat(service.expireOffsets(retention)).containsExactly(new Expired("simple", 1, false));
        assertThat(offsetsOf("simple")).containsExactly(tp("t", 1));
    }

    @Test
    void aStoreFailureEndsTheCheckAndTheNextOneDeletes() throws Exception {
        commit("a", "t", 0);
        commit("b", "t", 0);
        advance(RETENTION_MS);
        store.delegate.failNext(OffsetStoreException.Reason.UNAVAILABLE);

        assertThat(service.expireOffsets(retention)).isEmpty();
        assertThat(store.groups()).containsExactlyInAnyOrder("a", "b");
        assertThat(service.expireOffsets(retention))
                .containsExactly(new Expired("a", 1, true), new Expired("b", 1, true));
    }
}
