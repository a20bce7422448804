package io.tributary.broker.replication;

import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.log.AppendResult;
import io.tributary.broker.log.PartitionLog;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition replica on this broker: its log, its role and epochs as the coordinators last
 * committed them, and (as leader) the high watermark.
 *
 * <h2>High watermark</h2>
 *
 * <p>As leader: the minimum log end offset over the ISR, where the leader's own is its log's and a
 * follower's is the fetch offset of its latest Fetch ({@link #recordFollowerFetch}); a follower in
 * the ISR that has not fetched since this broker became leader holds it where it is. With ISR =
 * {leader} it is the log end offset, moved by every append. It never goes back while this replica
 * lives, and never falls below the log start offset. It is checkpointed ({@link
 * #checkpointHighWatermark}, periodically and at close) and a reopened replica starts from the
 * checkpoint, bounded by its log end offset.
 *
 * <h2>Waiting without polling</h2>
 *
 * <p>{@link #changeSignal()} returns a future completed on the next append or high-watermark
 * advance (then replaced by a fresh one). A waiter takes the signal first, then checks its
 * condition, then waits on the signal, so that no change between the check and the wait is lost.
 *
 * <h2>Thread-safety</h2>
 *
 * <p>Appends and follower-fetch updates run on request threads concurrently; the metadata thread
 * calls {@link #update}. A read-write lock keeps an append from running while leadership changes
 * (appends take it shared, {@link #update} exclusive), so no batch is stamped with an epoch this
 * replica no longer leads in. The high watermark and followers' offsets are guarded by a monitor.
 */
public final class Partition {

    private static final Logger log = LoggerFactory.getLogger(Partition.class);

    /** This replica's role. */
    public enum Role {
        LEADER,
        FOLLOWER
    }

    private final TopicIdPartition id;
    private final PartitionLog log_;
    private final int localBrokerId;
    private final ReentrantReadWriteLock leadership = new ReentrantReadWriteLock();
    private final Object hwLock = new Object();

    private volatile PartitionInfo info;
    private volatile int minInsyncReplicas;
    private volatile long highWatermark;
    private long checkpointed = -1;
    // Guarded by hwLock.
    private final Map<Integer, Long> followerLogEndOffsets = new HashMap<>();
    private CompletableFuture<Void> changed = new CompletableFuture<>();

    Partition(TopicIdPartition id, PartitionLog log, int localBrokerId, PartitionInfo info, int minInsyncReplicas) {
        this.id = Objects.requireNonNull(id, "id");
        this.log_ = Objects.requireNonNull(log, "log");
        this.localBrokerId = localBrokerId;
        this.info = Objects.requireNonNull(info, "info");
        this.minInsyncReplicas = minInsyncReplicas;
        long checkpoint = log.checkpointedHighWatermark().orElse(log.logStartOffset());
        this.highWatermark = Math.max(log.logStartOffset(), Math.min(checkpoint, log.logEndOffset()));
        synchronized (hwLock) {
            maybeAdvanceHighWatermarkLocked();
        }
    }

    public TopicIdPartition topicIdPartition() {
        return id;
    }

    public PartitionLog log() {
        return log_;
    }

    /** Placement, leader, epochs and ISR as last committed. */
    public PartitionInfo info() {
        return info;
    }

    public Role role() {
        return info.leader() == localBrokerId ? Role.LEADER : Role.FOLLOWER;
    }

    public boolean isLeader() {
        return role() == Role.LEADER;
    }

    public int leaderEpoch() {
        return info.leaderEpoch();
    }

    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    /** Whether this replica leads and some replica is outside the ISR. */
    public boolean isUnderReplicated() {
        PartitionInfo current = info;
        return current.leader() == localBrokerId
                && current.isr().size() < current.replicas().size();
    }

    /** The high watermark: the offset below which every record is on every in-sync replica. */
    public long highWatermark() {
        return Math.max(highWatermark, log_.logStartOffset());
    }

    /**
     * Takes the coordinators' newest state of this partition (metadata thread). A new leader epoch
     * forgets what followers reported under the previous one.
     */
    void update(PartitionInfo next, int nextMinInsyncReplicas) {
        leadership.writeLock().lock();
        try {
            PartitionInfo previous = info;
            info = next;
            minInsyncReplicas = nextMinInsyncReplicas;
            if (previous.leaderEpoch() != next.leaderEpoch() || previous.leader() != next.leader()) {
                log.info(
                        "{}: leader {} epoch {} -> leader {} epoch {} (this broker: {}), ISR {}",
                        id,
                        previous.leader(),
                        previous.leaderEpoch(),
                        next.leader(),
                        next.leaderEpoch(),
                        next.leader() == localBrokerId ? "leader" : "follower",
                        next.isr());
                synchronized (hwLock) {
                    followerLogEndOffsets.clear();
                }
            }
        } finally {
            leadership.writeLock().unlock();
        }
        synchronized (hwLock) {
            maybeAdvanceHighWatermarkLocked();
            signalLocked();
        }
    }

    /**
     * Appends a producer's batches as leader, in the epoch this replica leads (see {@link
     * PartitionLog#appendAsLeader}), and advances the high watermark.
     *
     * @throws NotLeaderException if this replica is not the leader
     */
    public AppendResult appendAsLeader(MemoryRecords records) {
        AppendResult result;
        leadership.readLock().lock();
        try {
            PartitionInfo current = info;
            if (current.leader() != localBrokerId) {
                throw new NotLeaderException(id + " is led by " + current.leader() + ", not " + localBrokerId);
            }
            result = log_.appendAsLeader(records, current.leaderEpoch());
        } finally {
            leadership.readLock().unlock();
        }
        synchronized (hwLock) {
            maybeAdvanceHighWatermarkLocked();
            signalLocked();
        }
        return result;
    }

    /**
     * A follower's Fetch at {@code fetchOffset}: everything below it is in the follower's log, so
     * it is the follower's log end offset for the high watermark (replacing the previous one: a
     * follower that truncated reports less; the high watermark itself never goes back). Ignored for
     * brokers that hold no replica, when this replica does not lead, and for an offset past this
     * log's end (a diverged follower, which must truncate first).
     */
    public void recordFollowerFetch(int replicaId, long fetchOffset) {
        PartitionInfo current = info;
        if (current.leader() != localBrokerId
                || !current.replicas().contains(replicaId)
                || fetchOffset > log_.logEndOffset()) {
            return;
        }
        synchronized (hwLock) {
            followerLogEndOffsets.put(replicaId, fetchOffset);
            maybeAdvanceHighWatermarkLocked();
        }
    }

    /** As follower: the leader's high watermark, bounded by this replica's log (issue 7's fetcher). */
    public void updateHighWatermarkAsFollower(long leaderHighWatermark) {
        synchronized (hwLock) {
            long candidate = Math.min(leaderHighWatermark, log_.logEndOffset());
            if (candidate > highWatermark) {
                highWatermark = candidate;
                signalLocked();
            }
        }
    }

    /** Wakes waiters after a change of the log not made through {@link #appendAsLeader}. */
    public void signalChange() {
        synchronized (hwLock) {
            maybeAdvanceHighWatermarkLocked();
            signalLocked();
        }
    }

    /** A future completed at the next append or high-watermark change. */
    public CompletableFuture<Void> changeSignal() {
        synchronized (hwLock) {
            return changed;
        }
    }

    /**
     * Waits, parked, until the high watermark reaches {@code offset} or {@code timeout} passes.
     *
     * @return whether it reached it
     */
    public boolean awaitHighWatermark(long offset, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            CompletableFuture<Void> signal = changeSignal();
            if (highWatermark() >= offset) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                signal.get(left, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return highWatermark() >= offset;
            } catch (ExecutionException e) {
                throw new IllegalStateException("a change signal never fails", e);
            }
        }
    }

    private void maybeAdvanceHighWatermarkLocked() {
        PartitionInfo current = info;
        if (current.leader() != localBrokerId) {
            return;
        }
        long candidate = log_.logEndOffset();
        List<Integer> isr = current.isr();
        for (int replica : isr) {
            if (replica == localBrokerId) {
                continue;
            }
            Long followerEnd = followerLogEndOffsets.get(replica);
            if (followerEnd == null) {
                return;
            }
            candidate = Math.min(candidate, followerEnd);
        }
        if (candidate > highWatermark) {
            highWatermark = candidate;
            signalLocked();
        }
    }

    private void signalLocked() {
        CompletableFuture<Void> previous = changed;
        changed = new CompletableFuture<>();
        previous.complete(null);
    }

    /** Writes the high watermark to the log's checkpoint if it moved since the last one. */
    void checkpointHighWatermark() {
        synchronized (hwLock) {
            long current = highWatermark();
            if (current != checkpointed) {
                log_.checkpointHighWatermark(current);
                checkpointed = current;
            }
        }
    }

    /** Checkpoints the high watermark, closes the log (clean shutdown) and wakes every waiter. */
    void close() {
        checkpointHighWatermark();
        log_.close();
        synchronized (hwLock) {
            signalLocked();
        }
    }

    @Override
    public String toString() {
        return "Partition(" + id + ", " + role() + ", epoch " + leaderEpoch() + ")";
    }
}
