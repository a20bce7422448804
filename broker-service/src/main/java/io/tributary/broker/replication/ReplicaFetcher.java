package io.tributary.broker.replication;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.log.PartitionLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One follower fetcher: a virtual thread fetching, for every partition this broker follows whose
 * leader is one source broker, over one connection to that broker (Kafka's {@code
 * ReplicaFetcherThread}, one per source broker rather than per partition).
 *
 * <h2>A round</h2>
 *
 * <ol>
 *   <li>Partitions just assigned (a new leader or leader epoch) whose log has leader epochs first
 *       ask the leader {@code OffsetForLeaderEpoch} with their latest epoch and truncate their
 *       divergent suffix (Kafka's rule, {@link #truncationOffset}); one whose own log does not know
 *       the epoch the leader answered truncates to that epoch's end and asks again.
 *   <li>One Fetch (v{@value #FETCH_VERSION}, topic ids, {@code ReplicaState} with this broker's id)
 *       for every other partition: fetch offset = log end offset, {@code current_leader_epoch} =
 *       the epoch it follows, {@code last_fetched_epoch} = its log's latest epoch, {@code
 *       partition_max_bytes} and {@code max_bytes} from the config. The leader takes the fetch
 *       offset as this follower's log end offset.
 *   <li>Per partition in the answer: records are appended with the leader's offsets (a batch cut
 *       by the leader's byte limit is dropped, fetched whole next time); the follower's high
 *       watermark becomes the leader's, bounded by its own log end; its log start follows the
 *       leader's. {@code DivergingEpoch}: truncate (KIP-320) and go on. {@code OFFSET_OUT_OF_RANGE}
 *       below the leader's log start: empty the log and restart it at the leader's start; above the
 *       leader's end: truncate to the leader's high watermark. Any other error: the partition waits
 *       {@code fetchBackoff} (a new image reassigns it).
 * </ol>
 *
 * <p>A failed connection or request closes the connection and waits {@code fetchBackoff}. A fetcher
 * with no partition waits, parked, for an assignment.
 *
 * <p>Thread-safety: {@link #assign}, {@link #remove} and {@link #stop} come from the metadata
 * thread; the per-partition fetch state is only changed by the fetcher thread, which drops any
 * answer for a partition reassigned meanwhile. Stopping never interrupts the thread (an interrupt
 * during file I/O would close a segment's channel): it closes the socket and wakes the thread.
 */
final class ReplicaFetcher {

    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcher.class);

    static final short FETCH_VERSION = 17;
    static final short OFFSET_FOR_LEADER_EPOCH_VERSION = 4;
    /** Room for the headers and fields of a response around its records. */
    static final int RESPONSE_OVERHEAD_BYTES = 1024 * 1024;

    /** What the fetcher knows of one followed partition. */
    static final class PartitionFetch {
        final Partition partition;
        final int leaderEpoch;
        volatile boolean truncating = true;
        volatile long retryAtMs;

        PartitionFetch(Partition partition, int leaderEpoch) {
            this.partition = partition;
            this.leaderEpoch = leaderEpoch;
        }

        TopicIdPartition id() {
            return partition.topicIdPartition();
        }

        @Override
        public String toString() {
            return id() + "@" + leaderEpoch + (truncating ? " (truncating)" : "");
        }
    }

    private final int localBrokerId;
    private final int sourceBrokerId;
    private final BrokerEndpoint endpoint;
    private final ReplicationConfig config;
    private final LeaderChannel.Connector connector;
    private final InstantSource clock;
    private final ReplicationMetrics metrics;
    private final ConcurrentHashMap<TopicIdPartition, PartitionFetch> states = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private volatile boolean running;
    private volatile LeaderChannel channel;
    private Thread thread;

    ReplicaFetcher(
            int localBrokerId,
            int sourceBrokerId,
            BrokerEndpoint endpoint,
            ReplicationConfig config,
            LeaderChannel.Connector connector,
            InstantSource clock) {
        this(localBrokerId, sourceBrokerId, endpoint, config, connector, clock, ReplicationMetrics.NONE);
    }

    ReplicaFetcher(
            int localBrokerId,
            int sourceBrokerId,
            BrokerEndpoint endpoint,
            ReplicationConfig config,
            LeaderChannel.Connector connector,
            InstantSource clock,
            ReplicationMetrics metrics) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.localBrokerId = localBrokerId;
        this.sourceBrokerId = sourceBrokerId;
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.config = Objects.requireNonNull(config, "config");
        this.connector = Objects.requireNonNull(connector, "connector");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    int sourceBrokerId() {
        return sourceBrokerId;
    }

    BrokerEndpoint endpoint() {
        return endpoint;
    }

    /** The partitions fetched, by id. */
    Map<TopicIdPartition, PartitionFetch> states() {
        return Map.copyOf(states);
    }

    /**
     * Fetches {@code partition} in {@code leaderEpoch}; a partition already fetched in that epoch
     * keeps its state, one in another epoch (or another replica object) starts over, truncating
     * first.
     */
    void assign(Partition partition, int leaderEpoch) {
        PartitionFetch existing = states.get(partition.topicIdPartition());
        if (existing != null && existing.partition == partition && existing.leaderEpoch == leaderEpoch) {
            return;
        }
        states.put(partition.topicIdPartition(), new PartitionFetch(partition, leaderEpoch));
        log.info(
                "Broker {} fetches {} from broker {} at {} in leader epoch {}",
                localBrokerId,
                partition.topicIdPartition(),
                sourceBrokerId,
                endpoint,
                leaderEpoch);
        wake();
    }

    void remove(TopicIdPartition id) {
        if (states.remove(id) != null) {
            log.info("Broker {} stops fetching {} from broker {}", localBrokerId, id, sourceBrokerId);
        }
    }

    /** Whether the fetcher thread is running. */
    boolean isAlive() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    boolean isEmpty() {
        return states.isEmpty();
    }

    void start() {
        running = true;
        thread = Thread.ofVirtual()
                .name("replica-fetcher-" + localBrokerId + "-from-" + sourceBrokerId)
                .start(this::run);
    }

    /**
     * Marks the fetcher running without starting its thread: the caller drives it by calling {@link
     * #runOnce} itself (deterministic simulations, {@code ReplicationSimulationTest}).
     */
    void startWithoutThread() {
        running = true;
    }

    /** Stops the thread: closes the connection, wakes it, and waits up to the stop timeout. */
    void stop() {
        running = false;
        LeaderChannel current = channel;
        if (current != null) {
            current.close();
        }
        wake();
        Thread t = thread;
        if (t != null) {
            try {
                if (!t.join(config.stopTimeout())) {
                    log.warn("Fetcher {} did not stop within {}", t.getName(), config.stopTimeout());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void wake() {
        lock.lock();
        try {
            work.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Parks up to {@code millis}, or until woken by an assignment or {@link #stop}. */
    private void pause(long millis) {
        lock.lock();
        try {
            if (running && millis > 0) {
                work.await(millis, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        long failures = 0;
        while (running) {
            try {
                if (!runOnce()) {
                    pause(nextRetryDelayMs());
                }
                failures = 0;
            } catch (IOException | RuntimeException e) {
                if (!running) {
                    break;
                }
                metrics.fetchFailed();
                failures++;
                // The first failure in a row and then every 30th: a leader down for minutes is one
                // line every 30 backoffs, not one per backoff.
                if (failures == 1 || failures % 30 == 0) {
                    log.warn(
                            "Broker {} fetching from broker {} at {}: {} ({} failures in a row); retrying every {}",
                            localBrokerId,
                            sourceBrokerId,
                            endpoint,
                            e.toString(),
                            failures,
                            config.fetchBackoff());
                }
                closeChannel();
                pause(config.fetchBackoff().toMillis());
            }
        }
        closeChannel();
    }

    private long nextRetryDelayMs() {
        long now = clock.millis();
        long next = states.values().stream()
                .mapToLong(s -> s.retryAtMs)
                .filter(t -> t > now)
                .min()
                .orElse(now + config.fetchBackoff().toMillis());
        return Math.max(1, Math.min(next - now, config.fetchBackoff().toMillis()));
    }

    /** Drops the connection (after a failed round; a simulation driving {@link #runOnce} calls it too). */
    void closeChannel() {
        LeaderChannel current = channel;
        channel = null;
        if (current != null) {
            current.close();
        }
    }

    private LeaderChannel channel() throws IOException {
        LeaderChannel current = channel;
        if (current == null) {
            current = connector.connect(endpoint);
            channel = current;
            if (!running) {
                current.close();
                throw new IOException("stopped");
            }
        }
        return current;
    }

    /**
     * One round: truncations, then one Fetch.
     *
     * @return whether any request was sent (false: nothing is ready, wait)
     */
    boolean runOnce() throws IOException {
        long now = clock.millis();
        List<PartitionFetch> ready = new ArrayList<>();
        for (PartitionFetch state : states.values()) {
            if (state.retryAtMs <= now) {
                ready.add(state);
            }
        }
        if (ready.isEmpty()) {
            return false;
        }
        List<PartitionFetch> truncating = new ArrayList<>();
        List<PartitionFetch> fetching = new ArrayList<>();
        for (PartitionFetch state : ready) {
            if (state.truncating && state.partition.log().leaderEpochs().isEmpty()) {
                // Nothing of any epoch to compare: the fetch (and OFFSET_OUT_OF_RANGE) decides.
                state.truncating = false;
            }
            (state.truncating ? truncating : fetching).add(state);
        }
        LeaderChannel connection = channel();
        if (!truncating.isEmpty()) {
            OffsetsForLeaderEpochResponse answer =
                    (OffsetsForLeaderEpochResponse) connection.send(epochRequest(truncating), RESPONSE_OVERHEAD_BYTES);
            handleEpochResponse(truncating, answer.data());
        }
        if (!fetching.isEmpty()) {
            FetchRequest request = fetchRequest(fetching);
            int maxFrame = (int) Math.min(
                    Integer.MAX_VALUE,
                    (long) config.fetchResponseMaxBytes() + largestBatchBound(fetching) + RESPONSE_OVERHEAD_BYTES);
            FetchResponse answer = (FetchResponse) connection.send(request, maxFrame);
            Map<TopicIdPartition, PartitionFetch> sent = new HashMap<>();
            fetching.forEach(s -> sent.put(s.id(), s));
            handleFetchResponse(sent, answer.data());
        }
        return true;
    }

    /** The largest batch a response may carry beyond the byte limits: one whole batch. */
    private static long largestBatchBound(List<PartitionFetch> fetching) {
        long largest = 0;
        for (PartitionFetch state : fetching) {
            try {
                largest = Math.max(largest, state.partition.log().config().maxMessageBytes());
            } catch (RuntimeException e) {
                // A closed log: it is not fetched below either.
            }
        }
        return largest;
    }

    // ------------------------------------------------------------------------------------------
    // Fetch

    FetchRequest fetchRequest(List<PartitionFetch> fetching) {
        Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        for (PartitionFetch state : fetching) {
            PartitionLog partitionLog = state.partition.log();
            int lastEpoch = EpochEnd.latestEpoch(partitionLog.leaderEpochs());
            data.put(
                    state.id().topicPartition(),
                    new FetchRequest.PartitionData(
                            state.id().topicId(),
                            partitionLog.logEndOffset(),
                            partitionLog.logStartOffset(),
                            config.fetchMaxBytes(),
                            Optional.of(state.leaderEpoch),
                            lastEpoch < 0 ? Optional.empty() : Optional.of(lastEpoch)));
        }
        return FetchRequest.Builder.forReplica(
                        FETCH_VERSION,
                        localBrokerId,
                        -1L,
                        Math.toIntExact(config.fetchMaxWait().toMillis()),
                        config.fetchMinBytes(),
                        data)
                .setMaxBytes(config.fetchResponseMaxBytes())
                .build(FETCH_VERSION);
    }

    /** Applies a Fetch answer to the partitions it was sent for (package-private for tests). */
    void handleFetchResponse(Map<TopicIdPartition, PartitionFetch> sent, FetchResponseData response) {
        Errors top = Errors.forCode(response.errorCode());
        if (top != Errors.NONE) {
            log.warn("Broker {}: fetch from broker {} failed: {}", localBrokerId, sourceBrokerId, top);
            long retryAt = clock.millis() + config.fetchBackoff().toMillis();
            sent.values().forEach(s -> s.retryAtMs = retryAt);
            return;
        }
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            for (FetchResponseData.PartitionData data : topic.partitions()) {
                PartitionFetch state = find(sent, topic, data.partitionIndex());
                if (state == null || states.get(state.id()) != state) {
                    continue; // reassigned or removed while the fetch was out
                }
                try {
                    handlePartition(state, data);
                } catch (RuntimeException e) {
                    log.warn(
                            "{}: fetched data not applied: {}; retrying in {}",
                            state,
                            e.toString(),
                            config.fetchBackoff());
                    state.retryAtMs = clock.millis() + config.fetchBackoff().toMillis();
                }
            }
        }
    }

    private static PartitionFetch find(
            Map<TopicIdPartition, PartitionFetch> sent, FetchResponseData.FetchableTopicResponse topic, int index) {
        for (PartitionFetch state : sent.values()) {
            boolean sameTopic =
                    topic.topicId() != null && !topic.topicId().equals(org.apache.kafka.common.Uuid.ZERO_UUID)
                            ? state.id().topicId().equals(topic.topicId())
                            : state.id().topic().equals(topic.topic());
            if (sameTopic && state.id().partition() == index) {
                return state;
            }
        }
        return null;
    }

    private void handlePartition(PartitionFetch state, FetchResponseData.PartitionData data) {
        Partition partition = state.partition;
        PartitionLog partitionLog = partition.log();
        Errors error = Errors.forCode(data.errorCode());
        switch (error) {
            case NONE -> {
                if (FetchResponse.isDivergingEpoch(data)) {
                    truncateOnDivergence(
                            state,
                            data.divergingEpoch().epoch(),
                            data.divergingEpoch().endOffset(),
                            data.logStartOffset());
                    return;
                }
                MemoryRecords records = wholeBatches(FetchResponse.recordsOrFail(data));
                if (records.sizeInBytes() > 0 && !partition.appendAsFollower(records, state.leaderEpoch)) {
                    // No longer a follower in this epoch: the next image reassigns it.
                    state.retryAtMs = clock.millis() + config.fetchBackoff().toMillis();
                    return;
                }
                long leaderStart = data.logStartOffset();
                if (leaderStart > partitionLog.logStartOffset()) {
                    partitionLog.deleteRecordsBefore(Math.min(leaderStart, partitionLog.logEndOffset()));
                }
                if (data.highWatermark() >= 0) {
                    partition.updateHighWatermarkAsFollower(data.highWatermark());
                }
            }
            case OFFSET_OUT_OF_RANGE -> {
                long leaderStart = data.logStartOffset();
                long leaderHw = data.highWatermark();
                long end = partitionLog.logEndOffset();
                if (leaderStart >= 0 && end < leaderStart) {
                    log.info(
                            "{}: log end {} is below the leader's log start {}: restarting there",
                            state,
                            end,
                            leaderStart);
                    partition.truncateFullyAndStartAt(leaderStart);
                    metrics.truncated();
                } else if (leaderHw >= 0 && leaderHw < end) {
                    // Past the leader's end (the divergence check did not catch it: the leader has no
                    // epochs to compare). Everything above the leader's high watermark may be
                    // missing there; what is not gets fetched again.
                    long target = Math.max(leaderHw, Math.max(leaderStart, partitionLog.logStartOffset()));
                    log.info(
                            "{}: fetch offset {} is past the leader's end: truncating to its high watermark {}",
                            state,
                            end,
                            target);
                    partition.truncateTo(target);
                    metrics.truncated();
                } else {
                    log.info(
                            "{}: OFFSET_OUT_OF_RANGE at {} (leader log start {}, high watermark {}); retrying in {}",
                            state,
                            end,
                            leaderStart,
                            leaderHw,
                            config.fetchBackoff());
                    state.retryAtMs = clock.millis() + config.fetchBackoff().toMillis();
                }
            }
            default -> {
                log.info("{}: the leader answered {}; retrying in {}", state, error, config.fetchBackoff());
                state.retryAtMs = clock.millis() + config.fetchBackoff().toMillis();
            }
        }
    }

    /**
     * KIP-320: the leader says this log's epoch {@code epoch} ends at {@code endOffset} there.
     * Truncates to where both logs agree (Kafka's {@code truncateOnFetchResponse}); fetching goes
     * on, and the next fetch's {@code last_fetched_epoch} settles any remaining divergence.
     */
    private void truncateOnDivergence(PartitionFetch state, int epoch, long endOffset, long leaderLogStart) {
        Partition partition = state.partition;
        if (endOffset < 0) {
            // The leader has no epoch at or below ours at all: nothing of this log is on it.
            partition.truncateTo(
                    Math.max(0, Math.max(leaderLogStart, partition.log().logStartOffset())));
            metrics.truncated();
            return;
        }
        Truncation truncation = truncationOffset(partition, epoch, endOffset);
        log.info(
                "{}: diverging epoch {} ends at {} on the leader: truncating to {}",
                state,
                epoch,
                endOffset,
                truncation.offset());
        partition.truncateTo(truncation.offset());
        metrics.truncated();
    }

    /** Where to truncate, and whether the divergence is settled (else: ask again). */
    record Truncation(long offset, boolean complete) {}

    /**
     * Kafka's {@code getOffsetTruncationState}: the leader's answer {@code (leaderEpoch,
     * leaderEndOffset)} to this log's latest epoch. Undefined end: truncate to the high watermark.
     * Otherwise this log's end of {@code leaderEpoch}: when this log has that epoch, truncate to the
     * smaller end; when it only has an older one, to that one's end, incomplete (ask again with it);
     * when it has none at or below, to the leader's end. Never above the log end.
     */
    static Truncation truncationOffset(Partition partition, int leaderEpoch, long leaderEndOffset) {
        PartitionLog partitionLog = partition.log();
        long logEnd = partitionLog.logEndOffset();
        if (leaderEndOffset < 0) {
            return new Truncation(Math.min(partition.highWatermark(), logEnd), true);
        }
        if (leaderEpoch < 0) {
            return new Truncation(Math.min(leaderEndOffset, logEnd), true);
        }
        EpochEnd own = EpochEnd.endOffsetFor(partitionLog.leaderEpochs(), leaderEpoch, logEnd);
        if (!own.isDefined()) {
            return new Truncation(Math.min(leaderEndOffset, logEnd), true);
        }
        if (own.epoch() != leaderEpoch) {
            return new Truncation(Math.min(own.endOffset(), logEnd), false);
        }
        return new Truncation(Math.min(Math.min(own.endOffset(), leaderEndOffset), logEnd), true);
    }

    /** The batches of {@code records} that are whole: the leader's byte limit may cut the last one. */
    static MemoryRecords wholeBatches(Records records) {
        if (!(records instanceof MemoryRecords memory) || memory.sizeInBytes() == 0) {
            return MemoryRecords.EMPTY;
        }
        int whole = 0;
        for (MutableRecordBatch batch : memory.batches()) {
            whole += batch.sizeInBytes();
        }
        if (whole == memory.sizeInBytes()) {
            return memory;
        }
        ByteBuffer slice = memory.buffer().duplicate();
        slice.limit(slice.position() + whole);
        return MemoryRecords.readableRecords(slice.slice());
    }

    // ------------------------------------------------------------------------------------------
    // OffsetForLeaderEpoch

    OffsetsForLeaderEpochRequest epochRequest(List<PartitionFetch> truncating) {
        var topics = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        for (PartitionFetch state : truncating) {
            String name = state.id().topic();
            var topic = topics.find(name);
            if (topic == null) {
                topic = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(name);
                topics.add(topic);
            }
            topic.partitions()
                    .add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                            .setPartition(state.id().partition())
                            .setCurrentLeaderEpoch(state.leaderEpoch)
                            .setLeaderEpoch(
                                    EpochEnd.latestEpoch(state.partition.log().leaderEpochs())));
        }
        return OffsetsForLeaderEpochRequest.Builder.forFollower(topics, localBrokerId)
                .build(OFFSET_FOR_LEADER_EPOCH_VERSION);
    }

    /** Truncates the partitions by the leader's epoch ends (package-private for tests). */
    void handleEpochResponse(List<PartitionFetch> truncating, OffsetForLeaderEpochResponseData response) {
        for (var topic : response.topics()) {
            for (var result : topic.partitions()) {
                PartitionFetch state = truncating.stream()
                        .filter(s -> s.id().topic().equals(topic.topic()) && s.id().partition() == result.partition())
                        .findFirst()
                        .orElse(null);
                if (state == null || states.get(state.id()) != state) {
                    continue;
                }
                Errors error = Errors.forCode(result.errorCode());
                if (error != Errors.NONE) {
                    log.info(
                            "{}: OffsetForLeaderEpoch answered {}; retrying in {}",
                            state,
                            error,
                            config.fetchBackoff());
                    state.retryAtMs = clock.millis() + config.fetchBackoff().toMillis();
                    continue;
                }
                try {
                    Truncation truncation = truncationOffset(state.partition, result.leaderEpoch(), result.endOffset());
                    if (truncation.offset() < state.partition.log().logEndOffset()) {
                        log.info(
                                "{}: the leader's epoch {} ends at {}: truncating to {}",
                                state,
                                result.leaderEpoch(),
                                result.endOffset(),
                                truncation.offset());
                        state.partition.truncateTo(truncation.offset());
                        metrics.truncated();
                    }
                    state.truncating = !truncation.complete();
                } catch (RuntimeException e) {
                    log.warn("{}: truncation failed: {}; retrying in {}", state, e.toString(), config.fetchBackoff());
                    state.retryAtMs = clock.millis() + config.fetchBackoff().toMillis();
                }
            }
        }
    }

    @Override
    public String toString() {
        return "ReplicaFetcher(" + localBrokerId + " <- " + sourceBrokerId + " at " + endpoint + ")";
    }
}
