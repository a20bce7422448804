package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.internal.InternalClientSecurity;
import io.tributary.coordinator.metadata.Endpoint;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import io.tributary.coordinator.metadata.MetadataCommand.FenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.RegisterBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.TopicPartition;
import io.tributary.coordinator.transaction.MarkerChannel.Markers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaMarkerChannel} against a Kafka listener on 127.0.0.1 whose WriteTxnMarkers handler is
 * the test's: the request carries the markers as the coordinator asked (producer, epochs, outcome,
 * partitions by topic); a written marker is acknowledged and a refused one is not; a deleted topic is
 * acknowledged without a request, an offline partition not sent; a second send while an attempt is
 * in flight skips its partitions; a broker that is down fails the attempt, and the next one reaches
 * it once it is back.
 */
class KafkaMarkerChannelTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<WritableTxnMarker> received = new CopyOnWriteArrayList<>();
    private final Map<TopicPartition, Errors> refusals = new ConcurrentHashMap<>();
    private final AtomicReference<CountDownLatch> hold = new AtomicReference<>();
    private final Set<TopicPartition> acknowledged = ConcurrentHashMap.newKeySet();
    private KafkaProtocolServer broker;
    private KafkaMarkerChannel channel;
    private volatile MetadataImage image;

    private final RequestHandler writeTxnMarkers = new RequestHandler() {
        @Override
        public ApiVersionRange versions() {
            return ApiVersionRange.of(ApiKeys.WRITE_TXN_MARKERS, 1, 2);
        }

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            CountDownLatch latch = hold.get();
            if (latch != null) {
                try {
                    latch.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            WriteTxnMarkersResponseData data = new WriteTxnMarkersResponseData();
            for (WritableTxnMarker m :
                    request.body(WriteTxnMarkersRequest.class).data().markers()) {
                received.add(m);
                WritableTxnMarkerResult result = new WritableTxnMarkerResult().setProducerId(m.producerId());
                m.topics().forEach(t -> {
                    WritableTxnMarkerTopicResult topic = new WritableTxnMarkerTopicResult().setName(t.name());
                    t.partitionIndexes()
                            .forEach(p -> topic.partitions()
                                    .add(new WritableTxnMarkerPartitionResult()
                                            .setPartitionIndex(p)
                                            .setErrorCode(
                                                    refusals.getOrDefault(new TopicPartition(t.name(), p), Errors.NONE)
                                                            .code())));
                    result.topics().add(topic);
                });
                data.markers().add(result);
            }
            return new WriteTxnMarkersResponse(data);
        }
    };

    @BeforeEach
    void start() {
        broker = startBroker(0);
        image = imageWithBrokerAt(broker.port());
        channel = new KafkaMarkerChannel(
                () -> image,
                "PLAINTEXT",
                InternalClientSecurity.PLAINTEXT,
                new KafkaMarkerChannel.Config(Duration.ofSeconds(1), Duration.ofSeconds(5), 1 << 20),
                "tributary-coordinator-markers");
    }

    @AfterEach
    void stop() {
        channel.close();
        broker.close();
    }

    private KafkaProtocolServer startBroker(int port) {
        KafkaProtocolServer server = new KafkaProtocolServer(
                ProtocolServerConfig.defaults("PLAINTEXT", "127.0.0.1", port),
                List.of(writeTxnMarkers),
                new ProtocolMetrics(registry, "test-" + System.nanoTime()));
        server.start();
        return server;
    }

    private static MetadataImage imageWithBrokerAt(int port) {
        return MetadataImage.EMPTY
                .apply(new RegisterBroker(
                        0,
                        Fixtures.incarnation(0, 0),
                        List.of(new Endpoint("PLAINTEXT", "127.0.0.1", port)),
                        Optional.empty(),
                        0))
                .apply(new UnfenceBroker(0, Fixtures.incarnation(0, 0)))
                .apply(Fixtures.createTopic("t", List.of(List.of(0), List.of(0))))
                .apply(Fixtures.createTopic("u", List.of(List.of(0))));
    }

    private static final TopicPartition T0 = new TopicPartition("t", 0);
    private static final TopicPartition T1 = new TopicPartition("t", 1);
    private static final TopicPartition U0 = new TopicPartition("u", 0);

    private static Markers markers(boolean commit, TopicPartition... partitions) {
        return new Markers("txn", 42, (short) 3, commit, 7, Set.of(partitions));
    }

    private void send(Markers m) {
        channel.send(m, (markers, tp) -> acknowledged.add(tp));
    }

    @Test
    void theMarkersAreSentAsAskedAndWrittenOnesAcknowledged() {
        refusals.put(T1, Errors.NOT_LEADER_OR_FOLLOWER);
        send(markers(true, T0, T1, U0));
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inFlight() == 0 && !received.isEmpty());
        assertThat(acknowledged).containsExactlyInAnyOrder(T0, U0);
        assertThat(received).singleElement().satisfies(m -> {
            assertThat(m.producerId()).isEqualTo(42);
            assertThat(m.producerEpoch()).isEqualTo((short) 3);
            assertThat(m.coordinatorEpoch()).isEqualTo(7);
            assertThat(m.transactionResult()).isTrue();
            assertThat(m.topics())
                    .extracting(t -> t.name() + t.partitionIndexes())
                    .containsExactly("t[0, 1]", "u[0]");
        });
        refusals.clear();
        send(markers(true, T1));
        await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.contains(T1));
    }

    @Test
    void staleMarkersAreNotAcknowledged() {
        refusals.put(T0, Errors.INVALID_PRODUCER_EPOCH);
        refusals.put(T1, Errors.TRANSACTION_COORDINATOR_FENCED);
        send(markers(false, T0, T1));
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inFlight() == 0 && received.size() == 1);
        assertThat(acknowledged).isEmpty();
    }

    @Test
    void aDeletedTopicIsAcknowledgedUnaskedAndAnOfflinePartitionNotSent() {
        image = image.apply(new DeleteTopic("u"));
        send(markers(true, U0));
        assertThat(acknowledged).containsExactly(U0);
        assertThat(received).isEmpty();

        image = image.apply(new FenceBroker(0, Fixtures.incarnation(0, 0)));
        assertThat(image.partitionState(T0).orElseThrow().offline()).isTrue();
        send(markers(true, T0));
        assertThat(channel.inFlight()).isZero();
        assertThat(received).isEmpty();
        assertThat(acknowledged).containsExactly(U0);
    }

    @Test
    void aPartitionWithAnAttemptInFlightIsSkipped() throws Exception {
        CountDownLatch latch = new CountDownLatch(1);
        hold.set(latch);
        send(markers(true, T0));
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inFlight() == 1);
        send(markers(true, T0)); // the coordinator's resend while the first attempt is under way
        send(markers(true, T1)); // another partition goes out (after the first, on the same connection)
        assertThat(channel.inFlight()).isEqualTo(2);
        hold.set(null);
        latch.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.containsAll(Set.of(T0, T1)));
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inFlight() == 0);
        assertThat(received).hasSize(2);
    }

    @Test
    void aBrokerThatIsDownFailsTheAttemptAndIsReachedOnceBack() {
        int port = broker.port();
        broker.close();
        send(markers(true, T0));
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inFlight() == 0);
        assertThat(acknowledged).isEmpty();
        broker = startBroker(port);
        send(markers(true, T0));
        await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.contains(T0));
    }
}
