package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.KafkaFrames;
import io.tributary.common.security.internal.InternalClientSecurity;
import io.tributary.coordinator.metadata.Broker;
import io.tributary.coordinator.metadata.Endpoint;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.PartitionState;
import io.tributary.coordinator.metadata.TopicPartition;
import io.tributary.coordinator.transaction.MarkerChannel;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link MarkerChannel} of a coordinator: WriteTxnMarkers (API 27, version 1) to each
 * partition's leader, as the latest metadata image names it, over one connection per broker
 * (secured and logged in as the coordinators' internal user when the cluster's internal traffic
 * is), each attempt on a virtual thread.
 *
 * <p>Per partition, the leader's answer decides (Kafka's rules for marker answers):
 *
 * <ul>
 *   <li>NONE: written, acknowledged.
 *   <li>A partition whose topic no longer exists (in the image, at the time of the send or of the
 *       answer): nothing left to mark, acknowledged without asking.
 *   <li>An offline partition: not sent; the coordinator sends again after its backoff.
 *   <li>Any other error (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, a timeout, a refused
 *       connection...), and INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED (this
 *       coordinator's markers are stale: a newer coordinator or producer epoch exists; logged):
 *       not acknowledged.
 * </ul>
 *
 * <p>At most one attempt per transaction and partition is in flight: a send for a partition whose
 * previous attempt has not ended skips it (the coordinator sends again later). An attempt ends when
 * its answer is read or its connection fails; a failed connection is closed before the next
 * attempt on it, so a marker is not in flight twice from this coordinator.
 *
 * <p>Thread-safety: safe for concurrent use; one round trip at a time per broker connection.
 */
public final class KafkaMarkerChannel implements MarkerChannel, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaMarkerChannel.class);

    /** The WriteTxnMarkers version sent (v1: flexible; v2 adds KIP-890's transaction version). */
    static final short VERSION = 1;

    /**
     * The channel's bounds.
     *
     * @param connectTimeout how long connecting to a broker may take (default 1 s)
     * @param requestTimeout how long a broker may take to answer (default 5 s; it writes the markers
     *     with acks=all first)
     * @param maxResponseBytes the largest answer read (default 1 MiB)
     */
    public record Config(Duration connectTimeout, Duration requestTimeout, int maxResponseBytes) {

        public static final Config DEFAULTS = new Config(Duration.ofSeconds(1), Duration.ofSeconds(5), 1 << 20);

        public Config {
            if (!connectTimeout.isPositive() || !requestTimeout.isPositive() || maxResponseBytes < 1024) {
                throw new IllegalArgumentException("need positive timeouts and maxResponseBytes >= 1024, got " + this);
            }
        }
    }

    private final Supplier<MetadataImage> image;
    private final String listener;
    private final InternalClientSecurity security;
    private final Config config;
    private final String clientId;
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final Map<Integer, Link> links = new ConcurrentHashMap<>();
    private final AtomicInteger correlationIds = new AtomicInteger();
    private final ExecutorService attempts = Executors.newVirtualThreadPerTaskExecutor();

    /** One broker's connection, used by one attempt at a time. */
    private static final class Link {
        Socket socket;
        String host;
        int port;
    }

    /**
     * @param image the latest metadata image (leaders, brokers' endpoints, topics)
     * @param listener the name of the brokers' listener to connect to (the first endpoint of a
     *     broker without it)
     * @param security how a connection is secured and logged in
     * @param config bounds
     * @param clientId the client id of the requests
     */
    public KafkaMarkerChannel(
            Supplier<MetadataImage> image,
            String listener,
            InternalClientSecurity security,
            Config config,
            String clientId) {
        this.image = Objects.requireNonNull(image, "image");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.security = Objects.requireNonNull(security, "security");
        this.config = Objects.requireNonNull(config, "config");
        this.clientId = Objects.requireNonNull(clientId, "clientId");
    }

    @Override
    public void send(Markers markers, Acknowledgement acknowledged) {
        MetadataImage current = image.get();
        Map<Integer, List<TopicPartition>> byLeader = new TreeMap<>();
        for (TopicPartition tp : new java.util.TreeSet<>(markers.partitions())) {
            Optional<PartitionState> state = current.partitionState(tp);
            if (state.isEmpty()) {
                acknowledged.written(markers, tp); // the topic is gone: nothing left to mark
                continue;
            }
            if (state.get().offline() || !inFlight.add(key(markers, tp))) {
                continue;
            }
            byLeader.computeIfAbsent(state.get().leader(), b -> new ArrayList<>())
                    .add(tp);
        }
        byLeader.forEach((broker, partitions) -> {
            try {
                attempts.execute(() -> attempt(broker, markers, partitions, acknowledged));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                partitions.forEach(tp -> inFlight.remove(key(markers, tp))); // closing
            }
        });
    }

    /** How many marker attempts are in flight (partitions). */
    public int inFlight() {
        return inFlight.size();
    }

    private static String key(Markers markers, TopicPartition tp) {
        return markers.transactionalId() + '\u0000' + markers.producerId() + '\u0000' + tp;
    }

    private void attempt(int brokerId, Markers markers, List<TopicPartition> partitions, Acknowledgement acknowledged) {
        try {
            Map<TopicPartition, Errors> answers = roundTrip(brokerId, markers, partitions);
            MetadataImage after = image.get();
            for (TopicPartition tp : partitions) {
                Errors error = answers.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR);
                if (error == Errors.NONE || after.partitionState(tp).isEmpty()) {
                    acknowledged.written(markers, tp);
                } else if (error == Errors.INVALID_PRODUCER_EPOCH || error == Errors.TRANSACTION_COORDINATOR_FENCED) {
                    log.warn(
                            "markers of '{}' (producer {} epoch {}, coordinator epoch {}) refused by broker {} for {}: {}",
                            markers.transactionalId(),
                            markers.producerId(),
                            markers.producerEpoch(),
                            markers.coordinatorEpoch(),
                            brokerId,
                            tp,
                            error);
                } else {
                    log.debug(
                            "marker of '{}' for {} not written by broker {}: {}",
                            markers.transactionalId(),
                            tp,
                            brokerId,
                            error);
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("markers of '{}' to broker {} failed: {}", markers.transactionalId(), brokerId, e.toString());
        } finally {
            partitions.forEach(tp -> inFlight.remove(key(markers, tp)));
        }
    }

    private Map<TopicPartition, Errors> roundTrip(int brokerId, Markers markers, List<TopicPartition> partitions)
            throws IOException {
        Broker broker = image.get().brokers().get(brokerId);
        if (broker == null || broker.endpoints().isEmpty()) {
            throw new IOException("broker " + brokerId + " is not registered");
        }
        Endpoint endpoint = broker.endpoints().stream()
                .filter(e -> e.listener().equals(listener))
                .findFirst()
                .orElse(broker.endpoints().getFirst());
        WriteTxnMarkersRequest request = new WriteTxnMarkersRequest.Builder(
                        new WriteTxnMarkersRequestData().setMarkers(List.of(marker(markers, partitions))))
                .build(VERSION);
        RequestHeader header = new RequestHeader(
                ApiKeys.WRITE_TXN_MARKERS, VERSION, clientId, correlationIds.incrementAndGet() & Integer.MAX_VALUE);
        Link link = links.computeIfAbsent(brokerId, b -> new Link());
        synchronized (link) {
            if (link.socket != null && (!link.host.equals(endpoint.host()) || link.port != endpoint.port())) {
                closeQuietly(link); // the broker moved
            }
            if (link.socket == null) {
                link.socket = security.connect(
                        endpoint.host(),
                        endpoint.port(),
                        config.connectTimeout(),
                        config.requestTimeout(),
                        clientId,
                        config.maxResponseBytes());
                link.host = endpoint.host();
                link.port = endpoint.port();
            }
            AbstractResponse response;
            try {
                response = KafkaFrames.roundTrip(link.socket, request, header, config.maxResponseBytes());
            } catch (IOException | RuntimeException e) {
                closeQuietly(link);
                throw e;
            }
            if (!(response instanceof WriteTxnMarkersResponse answer)) {
                closeQuietly(link);
                throw new IOException("broker " + brokerId + " answered WriteTxnMarkers with " + response.apiKey());
            }
            return errors(answer, markers.producerId());
        }
    }

    private static WritableTxnMarker marker(Markers markers, List<TopicPartition> partitions) {
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        partitions.forEach(tp ->
                byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
        List<WritableTxnMarkerTopic> topics = new ArrayList<>();
        byTopic.forEach((topic, indexes) ->
                topics.add(new WritableTxnMarkerTopic().setName(topic).setPartitionIndexes(indexes)));
        return new WritableTxnMarker()
                .setProducerId(markers.producerId())
                .setProducerEpoch(markers.producerEpoch())
                .setTransactionResult(markers.commit())
                .setCoordinatorEpoch(markers.coordinatorEpoch())
                .setTopics(topics);
    }

    private static Map<TopicPartition, Errors> errors(WriteTxnMarkersResponse answer, long producerId) {
        Map<TopicPartition, Errors> errors = new TreeMap<>();
        for (WritableTxnMarkerResult result : answer.data().markers()) {
            if (result.producerId() != producerId) {
                continue;
            }
            for (WritableTxnMarkerTopicResult topic : result.topics()) {
                for (WritableTxnMarkerPartitionResult p : topic.partitions()) {
                    errors.put(new TopicPartition(topic.name(), p.partitionIndex()), Errors.forCode(p.errorCode()));
                }
            }
        }
        return errors;
    }

    private static void closeQuietly(Link link) {
        if (link.socket != null) {
            try {
                link.socket.close();
            } catch (IOException ignored) {
                // a failed connection: nothing left to do
            }
            link.socket = null;
        }
    }

    /** Stops new attempts and closes every connection (attempts under way fail and are not acknowledged). */
    @Override
    public void close() {
        attempts.shutdownNow();
        links.values().forEach(KafkaMarkerChannel::closeQuietly);
    }
}
