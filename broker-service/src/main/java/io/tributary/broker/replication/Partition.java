package io.tributary.broker.replication;

import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.log.AppendResult;
import io.tributary.broker.log.PartitionLog;
import io.tributary.common.protocol.RequestWaits;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
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
 * <h2>Followers and the ISR (as leader)</h2>
 *
 * <p>Each follower's Fetch records its log end offset and, as Kafka's {@code lastCaughtUpTimeMs},
 * the last time it was caught up: a fetch at or past the leader's log end offset at that moment is
 * caught up now; a fetch at or past the leader's log end offset at the follower's previous fetch
 * was caught up at the time of that previous fetch. {@link #shrinkCandidate} names the ISR without
 * the followers not caught up for the lag time; {@link #expandCandidate} the ISR with a follower that
 * reached the high watermark (and this leader's epoch start). Such a change is only proposed
 * ({@link #beginIsrChange}, one at a time) and applied when the coordinators committed it ({@link
 * #completeIsrChange} with their answer, or a newer image through {@link #update}); while a
 * change is in flight the high watermark counts the union of the committed and the proposed ISR
 * (Kafka's "maximal ISR"), so a shrink never advances it early. A proposal whose AlterPartition
 * failed without an answer ({@link #failIsrChange}, not stale) may have been committed, so it keeps
 * counting until this replica learns the outcome (a newer image, or any committed answer); the
 * shrink candidate may then drop its lagging members, which asks the coordinators.
 *
 * <h2>As follower</h2>
 *
 * <p>The fetcher appends with {@link #appendAsFollower} (refused when this replica no longer
 * follows in that epoch), truncates with {@link #truncateTo} / {@link #truncateFullyAndStartAt}
 * (the high watermark drops to the new log end if it was above it), and takes the leader's high
 * watermark bounded by its own log end ({@link #updateHighWatermarkAsFollower}).
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
    private final InstantSource clock;
    private final FollowerCatchUpListener catchUpListener;

    private volatile PartitionInfo info;
    private volatile int minInsyncReplicas;
    private volatile long highWatermark;
    private long checkpointed = -1;
    // Guarded by hwLock.
    private final Map<Integer, FollowerState> followers = new HashMap<>();
    private CompletableFuture<Void> changed = new CompletableFuture<>();
    /** The leader's log end offset when it took its current epoch (guarded by hwLock). */
    private long leaderEpochStartOffset;
    /** The ISR proposed to the coordinators and not yet answered, or null (guarded by hwLock). */
    private List<Integer> pendingIsr;
    /** The state {@link #pendingIsr} was proposed at (identity: which proposal is in flight). */
    private PartitionInfo pendingBasis;
    /**
     * An ISR proposed whose AlterPartition failed without an answer, so it may have been committed
     * (an answer lost on the way back), and the state it was proposed at; null when none. Until this
     * replica learns the coordinators' state after it (a newer image, or any committed answer) it
     * counts for the high watermark as an in-flight proposal does, and a member of it that lags is
     * proposed out, which settles it (guarded by hwLock).
     */
    private List<Integer> unresolvedIsr;

    private PartitionInfo unresolvedBasis;
    /** The partition epoch a proposal was refused as stale at: no new proposal until it changes. */
    private int staleAtPartitionEpoch = -1;
    /** No proposal before this time (ms) after a failed one. */
    private long retryIsrChangeAtMs;

    /** Told when a follower outside the ISR may join it (the ISR manager proposes the change). */
    @FunctionalInterface
    interface FollowerCatchUpListener {
        void followerMayJoinIsr(Partition partition, int replicaId);

        FollowerCatchUpListener NONE = (partition, replicaId) -> {};
    }

    /** What the leader knows of one follower (guarded by hwLock). */
    private static final class FollowerState {
        long logEndOffset = -1;
        long lastCaughtUpMs;
        long lastFetchLeaderLogEndOffset = -1;
        long lastFetchMs = -1;

        FollowerState(long lastCaughtUpMs) {
            this.lastCaughtUpMs = lastCaughtUpMs;
        }
    }

    Partition(TopicIdPartition id, PartitionLog log, int localBrokerId, PartitionInfo info, int minInsyncReplicas) {
        this(id, log, localBrokerId, info, minInsyncReplicas, InstantSource.system(), FollowerCatchUpListener.NONE);
    }

    Partition(
            TopicIdPartition id,
            PartitionLog log,
            int localBrokerId,
            PartitionInfo info,
            int minInsyncReplicas,
            InstantSource clock,
            FollowerCatchUpListener catchUpListener) {
        this.id = Objects.requireNonNull(id, "id");
        this.log_ = Objects.requireNonNull(log, "log");
        this.localBrokerId = localBrokerId;
        this.info = Objects.requireNonNull(info, "info");
        this.minInsyncReplicas = minInsyncReplicas;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.catchUpListener = Objects.requireNonNull(catchUpListener, "catchUpListener");
        long checkpoint = log.checkpointedHighWatermark().orElse(log.logStartOffset());
        this.highWatermark = Math.max(log.logStartOffset(), Math.min(checkpoint, log.logEndOffset()));
        synchronized (hwLock) {
            resetFollowersLocked(info);
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

    /**
     * The leader epoch of {@code offset} as Kafka's leader epoch cache answers it to ListOffsets:
     * the epoch of the last batch written at or before it, except that a leader's current epoch
     * starts at its log end offset when it took the epoch (Kafka assigns that entry on becoming
     * leader, before any batch of the epoch is written), so offsets from there on are in the current
     * epoch, the empty log's end included. Empty when no epoch covers {@code offset}.
     */
    public OptionalInt leaderEpochAt(long offset) {
        synchronized (hwLock) {
            if (isLeader() && offset >= leaderEpochStartOffset) {
                return OptionalInt.of(leaderEpoch());
            }
        }
        int epoch = LeaderEpochs.epochAt(log_.leaderEpochs(), offset);
        return epoch < 0 ? OptionalInt.empty() : OptionalInt.of(epoch);
    }

    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    /**
     * The ISR size acks=all needs: {@code min.insync.replicas}, but never more than the
     * partition's replicas. Kafka (4.x, {@code Partition.effectiveMinIsr}) caps it the same way,
     * so a topic whose {@code min.insync.replicas} is above its replication factor takes acks=all
     * writes once every replica is in sync, rather than refusing them for ever.
     */
    public int effectiveMinInsyncReplicas() {
        return Math.min(minInsyncReplicas, info.replicas().size());
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
            minInsyncReplicas = nextMinInsyncReplicas;
            if (next.leaderEpoch() == previous.leaderEpoch()
                    && next.leader() == previous.leader()
                    && next.partitionEpoch() < previous.partitionEpoch()) {
                // An image older than an AlterPartition answer already applied: keep the newer state.
                return;
            }
            info = next;
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
                    resetFollowersLocked(next);
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
     * follower that truncated reports less; the high watermark itself never goes back), and it
     * moves the follower's last caught-up time (see the class comment). Ignored for brokers that
     * hold no replica, when this replica does not lead, and for an offset past this log's end (a
     * diverged follower, which must truncate first). A follower outside the ISR that reached the
     * high watermark is reported to the ISR manager.
     */
    public void recordFollowerFetch(int replicaId, long fetchOffset) {
        PartitionInfo current = info;
        if (current.leader() != localBrokerId
                || replicaId == localBrokerId
                || !current.replicas().contains(replicaId)
                || fetchOffset > log_.logEndOffset()) {
            return;
        }
        boolean mayJoin;
        synchronized (hwLock) {
            long now = clock.millis();
            long leaderEnd = log_.logEndOffset();
            FollowerState state = followers.computeIfAbsent(replicaId, r -> new FollowerState(-1));
            if (fetchOffset >= leaderEnd) {
                state.lastCaughtUpMs = Math.max(state.lastCaughtUpMs, now);
            } else if (state.lastFetchLeaderLogEndOffset >= 0 && fetchOffset >= state.lastFetchLeaderLogEndOffset) {
                state.lastCaughtUpMs = Math.max(state.lastCaughtUpMs, state.lastFetchMs);
            }
            state.lastFetchLeaderLogEndOffset = leaderEnd;
            state.lastFetchMs = now;
            state.logEndOffset = fetchOffset;
            maybeAdvanceHighWatermarkLocked();
            mayJoin = !current.isr().contains(replicaId) && joinsIsrLocked(state);
        }
        if (mayJoin) {
            catchUpListener.followerMayJoinIsr(this, replicaId);
        }
    }

    private boolean joinsIsrLocked(FollowerState state) {
        return state.logEndOffset >= highWatermark() && state.logEndOffset >= leaderEpochStartOffset;
    }

    /** Starts over the followers' state for a new leader or epoch (Kafka's reset on becoming leader). */
    private void resetFollowersLocked(PartitionInfo next) {
        followers.clear();
        pendingIsr = null;
        pendingBasis = null;
        unresolvedIsr = null;
        unresolvedBasis = null;
        staleAtPartitionEpoch = -1;
        retryIsrChangeAtMs = 0;
        if (next.leader() != localBrokerId) {
            return;
        }
        long now = clock.millis();
        leaderEpochStartOffset = log_.logEndOffset();
        for (int replica : next.replicas()) {
            if (replica != localBrokerId) {
                // ISR members get the lag time from now to show up; the others are not caught up.
                followers.put(replica, new FollowerState(next.isr().contains(replica) ? now : -1));
            }
        }
    }

    /**
     * As leader: the ISR without the followers whose last caught-up time is more than {@code
     * lagTimeMs} before now, if any is; empty when nothing is to remove, when a change is in flight
     * or backing off, or when this replica does not lead.
     */
    public Optional<List<Integer>> shrinkCandidate(long lagTimeMs) {
        PartitionInfo current = info;
        if (current.leader() != localBrokerId) {
            return Optional.empty();
        }
        synchronized (hwLock) {
            long now = clock.millis();
            if (!mayProposeLocked(current, now)) {
                return Optional.empty();
            }
            Set<Integer> members = new LinkedHashSet<>(current.isr());
            members.addAll(unresolvedIsrLocked(current));
            List<Integer> kept = new ArrayList<>();
            for (int replica : members) {
                FollowerState state = followers.get(replica);
                boolean lagging = replica != localBrokerId && (state == null || now - state.lastCaughtUpMs > lagTimeMs);
                if (!lagging) {
                    kept.add(replica);
                }
            }
            return kept.size() < members.size() ? Optional.of(List.copyOf(kept)) : Optional.empty();
        }
    }

    /**
     * As leader: the ISR with every follower outside it that reached the high watermark and this
     * leader's epoch start and was caught up within {@code lagTimeMs} (so that a follower that went
     * away is not added back from what it last reported), if any; empty otherwise, or when a change
     * is in flight or backing off.
     */
    public Optional<List<Integer>> expandCandidate(long lagTimeMs) {
        PartitionInfo current = info;
        if (current.leader() != localBrokerId) {
            return Optional.empty();
        }
        synchronized (hwLock) {
            long now = clock.millis();
            if (!mayProposeLocked(current, now)) {
                return Optional.empty();
            }
            Set<Integer> next = new LinkedHashSet<>(current.isr());
            for (int replica : current.replicas()) {
                FollowerState state = followers.get(replica);
                if (replica != localBrokerId
                        && !next.contains(replica)
                        && state != null
                        && joinsIsrLocked(state)
                        && now - state.lastCaughtUpMs <= lagTimeMs) {
                    next.add(replica);
                }
            }
            return next.size() > current.isr().size() ? Optional.of(List.copyOf(next)) : Optional.empty();
        }
    }

    private boolean mayProposeLocked(PartitionInfo current, long now) {
        return pendingIsr == null && current.partitionEpoch() != staleAtPartitionEpoch && now >= retryIsrChangeAtMs;
    }

    /**
     * Marks {@code proposed} in flight, if this replica leads in {@code basis}'s epochs and no other
     * change is: the caller then sends it to the coordinators and reports with {@link
     * #completeIsrChange} or {@link #failIsrChange}.
     *
     * @return the state the proposal is based on, or empty when it must not be sent
     */
    public Optional<PartitionInfo> beginIsrChange(List<Integer> proposed) {
        PartitionInfo current = info;
        if (current.leader() != localBrokerId || !proposed.contains(localBrokerId)) {
            return Optional.empty();
        }
        synchronized (hwLock) {
            if (!mayProposeLocked(current, clock.millis())) {
                return Optional.empty();
            }
            pendingIsr = List.copyOf(proposed);
            pendingBasis = current;
            return Optional.of(current);
        }
    }

    /** The ISR proposed and not yet answered, if any. */
    public Optional<List<Integer>> pendingIsr() {
        synchronized (hwLock) {
            return Optional.ofNullable(pendingIsr);
        }
    }

    /**
     * The coordinators committed the ISR change proposed at {@code basis}: applied when it is newer
     * than what this replica has in the same leader epoch (the image may have brought it already,
     * or moved on); the proposal is no longer in flight (unless a new leader epoch replaced it).
     */
    public void completeIsrChange(PartitionInfo basis, PartitionInfo committed) {
        leadership.writeLock().lock();
        try {
            PartitionInfo current = info;
            if (committed.partition() == current.partition()
                    && committed.leader() == current.leader()
                    && committed.leaderEpoch() == current.leaderEpoch()
                    && committed.partitionEpoch() > current.partitionEpoch()) {
                log.info(
                        "{}: ISR {} -> {} (partition epoch {})",
                        id,
                        current.isr(),
                        committed.isr(),
                        committed.partitionEpoch());
                info = committed;
            }
        } finally {
            leadership.writeLock().unlock();
        }
        synchronized (hwLock) {
            if (unresolvedBasis != null
                    && committed.leaderEpoch() == unresolvedBasis.leaderEpoch()
                    && committed.partitionEpoch() >= unresolvedBasis.partitionEpoch()) {
                // The coordinators' committed state after the unanswered proposal: it is settled.
                unresolvedIsr = null;
                unresolvedBasis = null;
            }
            clearPendingLocked(basis);
            maybeAdvanceHighWatermarkLocked();
            signalLocked();
        }
    }

    /** Ends the proposal made at {@code basis}, unless another (after a new epoch) replaced it. */
    private void clearPendingLocked(PartitionInfo basis) {
        if (pendingBasis == basis) {
            pendingIsr = null;
            pendingBasis = null;
        }
    }

    /**
     * A proposal based on {@code basis} failed: when {@code stale} (the coordinators have a newer
     * partition or leader epoch), no new one until this replica has another partition epoch than
     * the basis's; otherwise none before {@code retryAfterMs} from now.
     */
    public void failIsrChange(PartitionInfo basis, boolean stale, long retryAfterMs) {
        synchronized (hwLock) {
            if (pendingBasis != basis) {
                return; // a proposal of an earlier epoch, already forgotten
            }
            if (!stale) {
                // No answer: it may have been committed. Count it until the outcome is known.
                Set<Integer> unresolved = new LinkedHashSet<>(unresolvedIsrLocked(basis));
                unresolved.addAll(pendingIsr);
                unresolvedIsr = List.copyOf(unresolved);
                unresolvedBasis = basis;
            }
            clearPendingLocked(basis);
            if (stale) {
                staleAtPartitionEpoch = basis.partitionEpoch();
            }
            retryIsrChangeAtMs = clock.millis() + retryAfterMs;
            maybeAdvanceHighWatermarkLocked();
        }
    }

    /**
     * As follower: appends batches fetched from the leader of {@code leaderEpoch}, keeping their
     * offsets.
     *
     * @return false, appending nothing, when this replica no longer follows in that epoch
     */
    public boolean appendAsFollower(MemoryRecords records, int leaderEpoch) {
        leadership.readLock().lock();
        try {
            PartitionInfo current = info;
            if (current.leader() == localBrokerId || current.leaderEpoch() != leaderEpoch) {
                return false;
            }
            log_.appendAsFollower(records);
        } finally {
            leadership.readLock().unlock();
        }
        signalChange();
        return true;
    }

    /** As follower: removes the log's suffix from {@code offset} (see {@link PartitionLog#truncateTo}). */
    public void truncateTo(long offset) {
        leadership.readLock().lock();
        try {
            if (isLeader()) {
                throw new NotLeaderException(id + ": a leader does not truncate");
            }
            log_.truncateTo(offset);
        } finally {
            leadership.readLock().unlock();
        }
        synchronized (hwLock) {
            highWatermark = Math.min(highWatermark, log_.logEndOffset());
            signalLocked();
        }
    }

    /** As follower: empties the log and restarts it at {@code offset}. */
    public void truncateFullyAndStartAt(long offset) {
        leadership.readLock().lock();
        try {
            if (isLeader()) {
                throw new NotLeaderException(id + ": a leader does not truncate");
            }
            log_.truncateFullyAndStartAt(offset);
        } finally {
            leadership.readLock().unlock();
        }
        synchronized (hwLock) {
            highWatermark = offset;
            signalLocked();
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
        return awaitHighWatermark(offset, timeout, -1);
    }

    /**
     * {@link #awaitHighWatermark(long, Duration)} as the leader of {@code leaderEpoch} (unless -1):
     * returns false at once when this replica no longer leads in that epoch, since then nothing
     * moves its high watermark for this waiter.
     */
    public boolean awaitHighWatermark(long offset, Duration timeout, int leaderEpoch) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            CompletableFuture<Void> signal = changeSignal();
            if (highWatermark() >= offset) {
                return true;
            }
            if (leaderEpoch >= 0 && (!isLeader() || leaderEpoch() != leaderEpoch)) {
                return false;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            long parkedAt = System.nanoTime();
            try {
                signal.get(left, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return highWatermark() >= offset;
            } catch (ExecutionException e) {
                throw new IllegalStateException("a change signal never fails", e);
            } finally {
                RequestWaits.waited(System.nanoTime() - parkedAt);
            }
        }
    }

    private void maybeAdvanceHighWatermarkLocked() {
        PartitionInfo current = info;
        if (current.leader() != localBrokerId) {
            return;
        }
        long candidate = log_.logEndOffset();
        Set<Integer> maximalIsr = new LinkedHashSet<>(current.isr());
        if (pendingIsr != null) {
            maximalIsr.addAll(pendingIsr);
        }
        maximalIsr.addAll(unresolvedIsrLocked(current));
        for (int replica : maximalIsr) {
            if (replica == localBrokerId) {
                continue;
            }
            FollowerState follower = followers.get(replica);
            if (follower == null || follower.logEndOffset < 0) {
                return;
            }
            candidate = Math.min(candidate, follower.logEndOffset);
        }
        if (candidate > highWatermark) {
            highWatermark = candidate;
            signalLocked();
        }
    }

    /**
     * The unresolved ISR while {@code current} is still the state it was proposed at; once this
     * replica has a newer state (an image or an answer) the outcome is known and it is dropped.
     */
    private List<Integer> unresolvedIsrLocked(PartitionInfo current) {
        if (unresolvedBasis == null) {
            return List.of();
        }
        if (unresolvedBasis.leaderEpoch() != current.leaderEpoch()
                || unresolvedBasis.partitionEpoch() != current.partitionEpoch()
                || unresolvedBasis.leader() != current.leader()) {
            unresolvedIsr = null;
            unresolvedBasis = null;
            return List.of();
        }
        return unresolvedIsr;
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
