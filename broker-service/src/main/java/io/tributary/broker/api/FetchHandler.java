package io.tributary.broker.api;

import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.ReadResult;
import io.tributary.broker.replication.EpochEnd;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestAuthorizer;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.protocol.RequestWaits;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.internal.InternalUsers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetch (API 1), versions 4 to 18: reads each partition from the fetch offset and answers with
 * segment-file regions ({@code FileRecords} slices), which the listener sends with {@code
 * FileChannel.transferTo}.
 *
 * <ul>
 *   <li>Long poll: when fewer than {@code min_bytes} are ready, the request waits, parked on the
 *       partitions' change signals (completed by appends and high-watermark advances, never
 *       polled), until enough arrive or {@code max_wait_ms} (bounded by {@code maxWaitBound}) passes.
 *       Any partition error answers at once.
 *   <li>Limits: {@code partition_max_bytes} per partition and {@code max_bytes} per response; as in
 *       Kafka only the first non-empty partition may exceed them, by returning its first batch whole.
 *   <li>Consumers (replica id -1) read below the high watermark (also the last stable offset:
 *       there are no transactions, so both isolation levels see the same); followers (replica id
 *       at least 0, or {@code ReplicaState} from v15) read to the log end, and their fetch offset
 *       becomes their log end offset for the leader's high watermark; a replica id that is not
 *       one of the partition's replicas gets {@code NOT_LEADER_OR_FOLLOWER}.
 *   <li>Fetch sessions are declined: every answer has session id 0, so clients keep sending full
 *       fetches; an incremental fetch (a non-zero session id) gets {@code
 *       FETCH_SESSION_ID_NOT_FOUND}, a session epoch without a session {@code
 *       INVALID_FETCH_SESSION_EPOCH}.
 *   <li>Divergence (v12+): a fetch whose {@code last_fetched_epoch} this log did not have, or that
 *       ends before the fetch offset, is answered at once with {@code DivergingEpoch} (that epoch's
 *       end in this log) and no records, as in Kafka; the fetcher truncates and fetches again.
 *   <li>Per partition: {@code UNKNOWN_TOPIC_ID} (v13+), {@code TOPIC_AUTHORIZATION_FAILED} (with an
 *       authorizer: a consumer without READ on the topic, a follower without CLUSTER_ACTION on the
 *       cluster; with or without one: a broker's principal, {@code User:tributary-broker-<id>},
 *       fetching with another replica id), {@code UNKNOWN_TOPIC_OR_PARTITION}, {@code
 *       NOT_LEADER_OR_FOLLOWER} (with the current leader, v12+), {@code FENCED_LEADER_EPOCH} /
 *       {@code UNKNOWN_LEADER_EPOCH}, {@code OFFSET_OUT_OF_RANGE} (with the log start offset and
 *       high watermark).
 * </ul>
 *
 * <p>Thread-safe; a waiting fetch parks only its connection's virtual thread.
 */
public final class FetchHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.FETCH, 4, 18);

    private static final int NO_EPOCH = -1;

    private static final Logger auditLog = LoggerFactory.getLogger(RequestAuthorizer.AUDIT_LOGGER);

    private final PartitionAccess access;
    private final Duration maxWaitBound;
    private final DataPathMetrics metrics;
    private final AccessControl acls;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public FetchHandler(
            ReplicaManager replicas, MetadataView metadata, Duration maxWaitBound, DataPathMetrics metrics) {
        this(replicas, metadata, maxWaitBound, metrics, AccessControl.OPEN);
    }

    /**
     * @param acls who may fetch what: a consumer READ on each topic, a follower (replica id >= 0)
     *     CLUSTER_ACTION on the cluster; refused partitions answer TOPIC_AUTHORIZATION_FAILED
     */
    public FetchHandler(
            ReplicaManager replicas,
            MetadataView metadata,
            Duration maxWaitBound,
            DataPathMetrics metrics,
            AccessControl acls) {
        this.access = new PartitionAccess(replicas, metadata);
        this.maxWaitBound = Objects.requireNonNull(maxWaitBound, "maxWaitBound");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    /**
     * Whether the caller may fetch as replica {@code replicaId}: a broker ({@code
     * User:tributary-broker-<id>}) only as itself; a refusal is an audit line.
     */
    private static boolean fetchesAsItself(KafkaRequest request, int replicaId) {
        if (InternalUsers.mayFetchAsReplica(request.connection().principal(), replicaId)) {
            return true;
        }
        auditLog.info(
                "denied: principal={} host={} api=FETCH replica_id={}: a broker fetches only as its own replica",
                request.connection().principal(),
                request.connection().remoteAddress().getAddress().getHostAddress(),
                replicaId);
        return false;
    }

    /** One requested partition and what it has so far. */
    private static final class Slot {
        final FetchResponseData.PartitionData response;
        final long fetchOffset;
        final int maxBytes;
        final int lastFetchedEpoch;
        Partition partition;
        boolean diverged;

        Slot(int index, long fetchOffset, int maxBytes, int lastFetchedEpoch) {
            this.fetchOffset = fetchOffset;
            this.maxBytes = maxBytes;
            this.lastFetchedEpoch = lastFetchedEpoch;
            this.response = new FetchResponseData.PartitionData()
                    .setPartitionIndex(index)
                    .setHighWatermark(FetchResponse.INVALID_HIGH_WATERMARK)
                    .setLastStableOffset(FetchResponse.INVALID_LAST_STABLE_OFFSET)
                    .setLogStartOffset(FetchResponse.INVALID_LOG_START_OFFSET)
                    .setRecords(MemoryRecords.EMPTY);
        }

        boolean ok() {
            return response.errorCode() == Errors.NONE.code();
        }
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        FetchRequest fetch = request.body(FetchRequest.class);
        FetchRequestData data = fetch.data();
        short version = request.header().apiVersion();
        if (data.sessionId() != FetchMetadata.INVALID_SESSION_ID) {
            return FetchResponse.of(
                    Errors.FETCH_SESSION_ID_NOT_FOUND,
                    0,
                    FetchMetadata.INVALID_SESSION_ID,
                    new LinkedHashMap<>(),
                    List.of());
        }
        if (data.sessionEpoch() != FetchMetadata.INITIAL_EPOCH && data.sessionEpoch() != FetchMetadata.FINAL_EPOCH) {
            return FetchResponse.of(
                    Errors.INVALID_FETCH_SESSION_EPOCH,
                    0,
                    FetchMetadata.INVALID_SESSION_ID,
                    new LinkedHashMap<>(),
                    List.of());
        }
        int replicaId = fetch.replicaId();
        boolean fromFollower = replicaId >= 0;
        DataPathMetrics.FetchSource source =
                fromFollower ? DataPathMetrics.FetchSource.REPLICA : DataPathMetrics.FetchSource.CONSUMER;
        ClusterImage image = access.image();
        boolean byId = version >= 13;
        Map<Integer, BrokerInfo> hinted = new HashMap<>();
        FetchResponseData response =
                new FetchResponseData().setErrorCode(Errors.NONE.code()).setSessionId(FetchMetadata.INVALID_SESSION_ID);
        List<Slot> slots = new ArrayList<>();
        // A follower needs CLUSTER_ACTION on the cluster, a consumer READ on each topic; either way
        // Kafka refuses per partition (TOPIC_AUTHORIZATION_FAILED), after an unknown topic id. A
        // broker's principal fetches only as its own replica, answered as a follower without
        // CLUSTER_ACTION (Kafka binds no principal to a replica id).
        boolean replicaAllowed = fromFollower
                && fetchesAsItself(request, replicaId)
                && acls.allowed(
                        request.connection(),
                        AclOperation.CLUSTER_ACTION,
                        AclResourceType.CLUSTER,
                        AclResourceType.CLUSTER_NAME);
        for (FetchRequestData.FetchTopic topicData : data.topics()) {
            Optional<TopicInfo> topic = byId
                    ? PartitionAccess.topicById(image, topicData.topicId())
                    : PartitionAccess.topicByName(image, topicData.topic());
            String name = topic.map(TopicInfo::name).orElse(topicData.topic());
            var topicResponse = new FetchResponseData.FetchableTopicResponse()
                    .setTopic(name)
                    .setTopicId(topicData.topicId());
            boolean readable = fromFollower
                    ? replicaAllowed
                    : (byId && topic.isEmpty())
                            || acls.allowed(request.connection(), AclOperation.READ, AclResourceType.TOPIC, name);
            for (FetchRequestData.FetchPartition partitionData : topicData.partitions()) {
                Slot slot = new Slot(
                        partitionData.partition(),
                        partitionData.fetchOffset(),
                        partitionData.partitionMaxBytes(),
                        version >= 12 ? partitionData.lastFetchedEpoch() : NO_EPOCH);
                slots.add(slot);
                topicResponse.partitions().add(slot.response);
                if (byId && topic.isEmpty()) {
                    slot.response.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                    continue;
                }
                if (!readable) {
                    slot.response.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                PartitionAccess.Resolved resolved = access.resolve(
                        topic,
                        partitionData.partition(),
                        partitionData.currentLeaderEpoch(),
                        PartitionAccess.Need.LEADER);
                if (!resolved.isOk()) {
                    slot.response.setErrorCode(resolved.error().code());
                    if (resolved.error() == Errors.NOT_LEADER_OR_FOLLOWER && version >= 12) {
                        PartitionAccess.LeaderHint hint = access.leaderHint(image, topic, partitionData.partition());
                        slot.response
                                .currentLeader()
                                .setLeaderId(hint.leaderId())
                                .setLeaderEpoch(hint.leaderEpoch());
                        hint.broker().ifPresent(b -> hinted.put(b.id(), b));
                    }
                    continue;
                }
                if (fromFollower
                        && !resolved.partition().get().info().replicas().contains(replicaId)) {
                    // Only the partition's replicas may read past the high watermark.
                    slot.response.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                    continue;
                }
                slot.partition = resolved.partition().get();
                if (slot.fetchOffset < 0 || slot.maxBytes < 0) {
                    slot.response.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                    fillOffsets(slot, slot.partition);
                    continue;
                }
                if (checkDivergence(slot)) {
                    continue;
                }
                if (fromFollower) {
                    slot.partition.recordFollowerFetch(replicaId, slot.fetchOffset);
                }
            }
            response.responses().add(topicResponse);
        }
        int minBytes = Math.max(0, fetch.minBytes());
        long maxWaitMs = Math.min(Math.max(0, fetch.maxWait()), maxWaitBound.toMillis());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxWaitMs);
        boolean waited = false;
        while (true) {
            List<CompletableFuture<Void>> signals = new ArrayList<>();
            for (Slot slot : slots) {
                if (slot.ok() && slot.partition != null) {
                    signals.add(slot.partition.changeSignal());
                }
            }
            long bytes = readAll(slots, fetch.maxBytes(), fromFollower, fetch.isolationLevel());
            boolean anyError = slots.stream().anyMatch(s -> !s.ok() || s.diverged);
            long left = deadline - System.nanoTime();
            if (bytes >= minBytes || anyError || signals.isEmpty() || left <= 0) {
                if (waited) {
                    metrics.fetchWaited(
                            bytes >= minBytes
                                    ? DataPathMetrics.FetchWaitOutcome.SATISFIED
                                    : DataPathMetrics.FetchWaitOutcome.EXPIRED);
                }
                metrics.fetched(bytes, source);
                break;
            }
            waited = true;
            long parkedAt = System.nanoTime();
            try {
                CompletableFuture.anyOf(signals.toArray(CompletableFuture[]::new))
                        .get(left, TimeUnit.NANOSECONDS);
                RequestWaits.waited(System.nanoTime() - parkedAt);
            } catch (TimeoutException e) {
                RequestWaits.waited(System.nanoTime() - parkedAt);
                // One more read below, then the answer.
                deadline = System.nanoTime();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                deadline = System.nanoTime();
            } catch (ExecutionException e) {
                throw new IllegalStateException("a change signal never fails", e);
            }
        }
        if (version >= 16) {
            for (BrokerInfo broker : hinted.values()) {
                PartitionAccess.endpoint(broker, request)
                        .ifPresent(endpoint -> response.nodeEndpoints()
                                .add(new FetchResponseData.NodeEndpoint()
                                        .setNodeId(broker.id())
                                        .setHost(endpoint.host())
                                        .setPort(endpoint.port())
                                        .setRack(
                                                broker.rack() == null
                                                                || broker.rack().isEmpty()
                                                        ? null
                                                        : broker.rack())));
            }
        }
        return FetchResponse.of(response);
    }

    /**
     * Kafka's divergence check (KIP-320, Fetch v12+): a fetcher that names the epoch of the last
     * batch it fetched learns where that epoch ends in this log; when this log never had that
     * epoch (the largest epoch at most it is smaller) or it ends before the fetch offset, the
     * fetcher's log diverged, and the answer is that epoch and end offset ({@code DivergingEpoch})
     * with no records, so that it truncates before fetching again.
     *
     * @return whether the slot diverged
     */
    private static boolean checkDivergence(Slot slot) {
        Partition partition = slot.partition;
        if (slot.lastFetchedEpoch < 0 || partition.log().leaderEpochs().isEmpty()) {
            // A log without epochs (emptied, restarted at an offset) has nothing to compare with: an
            // answer of epoch -1 is no DivergingEpoch to the fetcher. Fetch offsets past this log's
            // end get OFFSET_OUT_OF_RANGE instead, on which the fetcher truncates.
            return false;
        }
        EpochEnd end = EpochEnd.endOffsetFor(
                partition.log().leaderEpochs(),
                slot.lastFetchedEpoch,
                partition.log().logEndOffset());
        if (end.epoch() < slot.lastFetchedEpoch || end.endOffset() < slot.fetchOffset) {
            slot.diverged = true;
            slot.response.divergingEpoch().setEpoch(end.epoch()).setEndOffset(end.endOffset());
            fillOffsets(slot, partition);
            return true;
        }
        return false;
    }

    /** Reads every partition afresh; returns the record bytes read. */
    private static long readAll(List<Slot> slots, int requestMaxBytes, boolean fromFollower, IsolationLevel isolation) {
        long budget = requestMaxBytes <= 0 ? Integer.MAX_VALUE : requestMaxBytes;
        long total = 0;
        boolean first = true;
        for (Slot slot : slots) {
            if (slot.partition == null || !slot.ok() || slot.diverged) {
                continue;
            }
            Partition partition = slot.partition;
            slot.response.setRecords(MemoryRecords.EMPTY);
            fillOffsets(slot, partition);
            if (budget <= 0 && !first) {
                continue;
            }
            long upper = fromFollower ? Long.MAX_VALUE : partition.highWatermark();
            try {
                int limit = (int) Math.min(slot.maxBytes, Math.max(0, budget));
                ReadResult read = partition.log().read(slot.fetchOffset, limit, upper);
                int size = read.records().sizeInBytes();
                if (size > limit && !first) {
                    // Only the first non-empty partition may go past the limits (Kafka's minOneMessage).
                    continue;
                }
                if (size > 0) {
                    slot.response.setRecords(read.records());
                    total += size;
                    budget -= size;
                    first = false;
                }
            } catch (RuntimeException e) {
                slot.response.setErrorCode(
                        DataPathErrors.of(e, partition.topicIdPartition()).code());
                slot.response.setRecords(MemoryRecords.EMPTY);
            }
        }
        return total;
    }

    private static void fillOffsets(Slot slot, Partition partition) {
        long hw = partition.highWatermark();
        slot.response
                .setHighWatermark(hw)
                .setLastStableOffset(hw)
                .setLogStartOffset(partition.log().logStartOffset());
    }
}
