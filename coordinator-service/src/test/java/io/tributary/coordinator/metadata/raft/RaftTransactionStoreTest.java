package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.common.protocol.CoordinatorNodeIds;
import io.tributary.coordinator.metadata.MetadataLimits;
import io.tributary.coordinator.metadata.TopicPartition;
import io.tributary.coordinator.transaction.MarkerChannel;
import io.tributary.coordinator.transaction.MarkerChannel.Markers;
import io.tributary.coordinator.transaction.TransactionConfig;
import io.tributary.coordinator.transaction.TransactionCoordinator;
import io.tributary.coordinator.transaction.TransactionCoordinator.ProducerIdAndEpoch;
import io.tributary.coordinator.transaction.TransactionException;
import io.tributary.coordinator.transaction.TransactionRecord;
import io.tributary.coordinator.transaction.TransactionState;
import io.tributary.coordinator.transaction.TransactionStore.StoreException;
import io.tributary.coordinator.transaction.TransactionStore.StoreException.Reason;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RaftTransactionStore} on three metadata voters in this JVM, under a real {@link
 * TransactionCoordinator}: a commit decided by one leader and interrupted by its loss is finished
 * by the next leader's coordinator; a write computed from a stale record is a CONFLICT and changes
 * nothing; followers refuse writes; the bound on transactional ids holds.
 */
class RaftTransactionStoreTest {

    private static final MetadataLimits LIMITS =
            new MetadataLimits(1 << 20, 100, 1000, 10, 10, 64, 10, 10, 10, 10, 10, 2);

    @TempDir
    Path dir;

    private ThreeVoters voters;

    /** Records every marker request; acknowledges nothing unless asked. */
    private static final class RecordingChannel implements MarkerChannel {
        final List<Markers> sent = new CopyOnWriteArrayList<>();
        final List<Acknowledgement> acks = new CopyOnWriteArrayList<>();

        @Override
        public void send(Markers markers, Acknowledgement acknowledged) {
            sent.add(markers);
            acks.add(acknowledged);
        }

        void acknowledgeLast() {
            Markers m = sent.getLast();
            m.partitions().forEach(tp -> acks.getLast().written(m, tp));
        }
    }

    @BeforeEach
    void startCluster() throws IOException {
        voters = new ThreeVoters(dir, LIMITS);
        voters.oneBrokerAndTopicT();
    }

    @AfterEach
    void closeAll() throws IOException {
        voters.close();
    }

    private RaftTransactionStore store(int i) {
        MetadataRaftNode node = voters.node(i);
        return new RaftTransactionStore(
                node.stateMachine(),
                voters.client(i),
                node::isLeader,
                RaftOffsetStore.DEFAULT_APPLY_WAIT,
                CoordinatorNodeIds.nodeId(i),
                10);
    }

    private TransactionCoordinator coordinator(int i, RecordingChannel channel) {
        RaftTransactionStore store = store(i);
        MetadataRaftNode node = voters.node(i);
        return new TransactionCoordinator(
                store, store, channel, TransactionConfig.DEFAULTS, System::currentTimeMillis, () ->
                        (int) node.currentTerm());
    }

    @Test
    void aCommitDecidedBeforeALeaderChangeIsFinishedByTheNextLeader() throws Exception {
        int leader = voters.awaitLeader();
        RecordingChannel first = new RecordingChannel();
        TransactionCoordinator coordinator = coordinator(leader, first);
        ProducerIdAndEpoch pid = coordinator.initProducerId("txn", 60_000, -1, (short) -1);
        assertThat(pid.producerEpoch()).isZero();
        TopicPartition t0 = new TopicPartition("t", 0);
        coordinator.addPartitions("txn", pid.producerId(), pid.producerEpoch(), List.of(t0));
        coordinator.endTxn("txn", pid.producerId(), pid.producerEpoch(), true);
        assertThat(first.sent).hasSize(1);
        assertThat(first.sent.getFirst().commit()).isTrue();
        assertThat(first.sent.getFirst().partitions()).containsExactly(t0);

        voters.stop(leader); // before any marker was acknowledged
        int next = voters.awaitLeader();
        RecordingChannel second = new RecordingChannel();
        TransactionCoordinator successor = coordinator(next, second);
        assertThatThrownBy(() -> successor.endTxn("txn", pid.producerId(), pid.producerEpoch(), false))
                .as("the decision was taken: the other one is refused")
                .isInstanceOfSatisfying(
                        TransactionException.class, e -> assertThat(e.error()).isEqualTo(Errors.INVALID_TXN_STATE));
        successor.scan();
        assertThat(second.sent).hasSize(1);
        Markers markers = second.sent.getFirst();
        assertThat(markers.commit()).isTrue();
        assertThat(markers.coordinatorEpoch())
                .as("the new leader's markers carry its higher epoch")
                .isGreaterThan(first.sent.getFirst().coordinatorEpoch());
        second.acknowledgeLast();
        assertThat(store(next).get("txn").orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        successor.endTxn("txn", pid.producerId(), pid.producerEpoch(), true); // a retry: answered again
        ProducerIdAndEpoch again = successor.initProducerId("txn", 60_000, -1, (short) -1);
        assertThat(again).isEqualTo(new ProducerIdAndEpoch(pid.producerId(), (short) 1));
        int survivor = voters.runningOtherThan(next);
        await().atMost(ThreeVoters.TIMEOUT)
                .untilAsserted(() -> assertThat(
                                store(survivor).get("txn").orElseThrow().producerEpoch())
                        .isEqualTo((short) 1));
    }

    @Test
    void aStaleWriteIsAConflictAndFollowersRefuseWrites() throws Exception {
        int leader = voters.awaitLeader();
        RaftTransactionStore store = store(leader);
        long producerId = store.next();
        TransactionRecord first = empty("a", 0, producerId, 0, -1, 1);
        store.store(first);
        store.store(first); // a resend changes nothing
        TransactionRecord bumped = empty("a", 1, producerId, 1, 0, 2);
        store.store(bumped);
        TransactionRecord stale = empty("a", 1, producerId, 5, 0, 3);
        assertReason(() -> store.store(stale), Reason.CONFLICT);
        assertThat(store.get("a")).contains(bumped);

        TransactionRecord other = empty("b", 0, store.next(), 0, -1, 1);
        store.store(other);
        TransactionRecord third = empty("c", 0, store.next(), 0, -1, 1);
        assertReason(() -> store.store(third), Reason.LIMIT_EXCEEDED);

        int follower = (leader + 1) % 3;
        assertReason(() -> store(follower).store(third), Reason.NOT_LEADER);
        assertReason(() -> store(follower).next(), Reason.NOT_LEADER);
        assertReason(() -> store.delete("a", 0), Reason.CONFLICT);
        store.delete("a", 1);
        assertThat(store.get("a")).isEmpty();
        await().atMost(ThreeVoters.TIMEOUT)
                .untilAsserted(() -> assertThat(store(follower).all()).containsExactly(other));
        assertThat(voters.node(leader).stateMachine().image().nextProducerId())
                .as("one block of 10 for this coordinator")
                .isEqualTo(10);
    }

    /** An Empty record of {@code id} with a one-second timeout. */
    private static TransactionRecord empty(
            String id, long revision, long producerId, int epoch, int lastEpoch, long updated) {
        return new TransactionRecord(
                id,
                revision,
                producerId,
                -1,
                -1,
                (short) epoch,
                (short) lastEpoch,
                1000,
                TransactionState.EMPTY,
                new java.util.TreeSet<>(),
                new java.util.TreeSet<>(),
                -1,
                updated,
                (byte) 0);
    }

    private interface Write {
        void run() throws StoreException;
    }

    private static void assertReason(Write write, Reason reason) {
        assertThatThrownBy(write::run)
                .isInstanceOfSatisfying(
                        StoreException.class, e -> assertThat(e.reason()).isEqualTo(reason));
    }
}
