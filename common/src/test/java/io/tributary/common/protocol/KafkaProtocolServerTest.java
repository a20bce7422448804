package io.tributary.common.protocol;

import static io.tributary.common.protocol.TestHandlers.count;
import static io.tributary.common.protocol.TestHandlers.describeClusterOk;
import static io.tributary.common.protocol.TestHandlers.eventually;
import static io.tributary.common.protocol.TestHandlers.handler;
import static io.tributary.common.protocol.TestHandlers.produceOk;
import static io.tributary.common.protocol.TestHandlers.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.testing.KafkaTestConnection;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The listener's request handling against a real {@link KafkaProtocolServer} on 127.0.0.1: what
 * ApiVersions advertises, how requests without a handler, outside a handler's versions or failing in
 * their handler are answered, and the order of responses. Requests are built and responses parsed
 * with kafka-clients' own classes.
 */
class KafkaProtocolServerTest {

    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ProtocolServerConfig config = ProtocolServerConfig.defaults("test", "127.0.0.1", 0);

    static IntStream apiVersionsVersions() {
        return IntStream.rangeClosed(ApiKeys.API_VERSIONS.oldestVersion(), ApiKeys.API_VERSIONS.latestVersion());
    }

    @ParameterizedTest(name = "ApiVersions v{0}")
    @MethodSource("apiVersionsVersions")
    void apiVersionsListsExactlyTheRegisteredHandlersAndItselfWithTheirVersionRanges(int version) throws Exception {
        try (var server = start(
                        config,
                        registry,
                        handler(ApiKeys.PRODUCE, 3, 9, TestHandlers::produceOk),
                        handler(ApiKeys.METADATA, 1, 12, request -> {
                            throw new AssertionError("not called");
                        }),
                        handler(ApiKeys.DESCRIBE_CLUSTER, 0, 1, TestHandlers::describeClusterOk));
                var connection = KafkaTestConnection.open(server.port())) {

            var response = connection.roundTrip(
                    new ApiVersionsRequest.Builder().build((short) version), ApiVersionsResponse.class);

            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(response.data().apiKeys())
                    .extracting(
                            ApiVersionsResponseData.ApiVersion::apiKey,
                            ApiVersionsResponseData.ApiVersion::minVersion,
                            ApiVersionsResponseData.ApiVersion::maxVersion)
                    .containsExactlyInAnyOrder(
                            // Produce from v0 whatever the handler's oldest: Kafka's KAFKA-18659 workaround.
                            tuple(ApiKeys.PRODUCE.id, ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION, (short) 9),
                            tuple(ApiKeys.METADATA.id, (short) 1, (short) 12),
                            tuple(
                                    ApiKeys.API_VERSIONS.id,
                                    ApiKeys.API_VERSIONS.oldestVersion(),
                                    ApiKeys.API_VERSIONS.latestVersion()),
                            tuple(ApiKeys.DESCRIBE_CLUSTER.id, (short) 0, (short) 1));
        }
    }

    /*
     * A real kafka-clients network stack (Admin -> KafkaAdminClient -> NetworkClient) connects,
     * sends ApiVersions, and from then on checks each request against the versions it was told.
     * Admin.describeCluster() prefers the DescribeCluster API; when the node's ApiVersions lacks it,
     * NetworkClient refuses to send it (UnsupportedVersionException before any bytes leave) and the
     * admin client falls back to Metadata. So the node coming back while the listener never saw a
     * DescribeCluster request proves the client read and used the advertised versions.
     */
    @Test
    void kafkaAdminClientReadsTheAdvertisedVersionsAndDescribesTheClusterThroughMetadata() throws Exception {
        var port = new AtomicInteger();
        var server = start(config, registry, TestHandlers.metadataOfOneNode(port::get));
        try {
            port.set(server.port());
            Map<String, Object> adminConfig = Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    "127.0.0.1:" + server.port(),
                    AdminClientConfig.CLIENT_ID_CONFIG,
                    "tributary-admin-test",
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                    30_000,
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                    30_000);
            try (Admin admin = Admin.create(adminConfig)) {
                var cluster = admin.describeCluster();

                assertThat(cluster.nodes().get(30, TimeUnit.SECONDS))
                        .containsExactly(new Node(TestHandlers.NODE_ID, "127.0.0.1", server.port()));
                assertThat(cluster.clusterId().get(30, TimeUnit.SECONDS)).isEqualTo(TestHandlers.CLUSTER_ID);
            }
        } finally {
            // Joins the connections' threads, so every request they read has been counted.
            server.close();
        }

        assertThat(count(registry, "tributary.protocol.requests", "api", ApiKeys.DESCRIBE_CLUSTER.name))
                .as("DescribeCluster requests the listener received")
                .isZero();
        assertThat(count(registry, "tributary.protocol.requests", "api", ApiKeys.API_VERSIONS.name))
                .isPositive();
        assertThat(count(registry, "tributary.protocol.requests", "api", ApiKeys.METADATA.name))
                .isPositive();
    }

    @Test
    void apiVersionsNewerThanKafkaClientsKnowsIsAnsweredAtVersionZeroWithUnsupportedVersionAndTheVersionList()
            throws Exception {
        short futureVersion = 127;
        assertThat(ApiKeys.API_VERSIONS.isVersionSupported(futureVersion)).isFalse();
        try (var server = start(config, registry, handler(ApiKeys.METADATA, 4, 12, request -> {
                    throw new AssertionError("not called");
                }));
                var connection = KafkaTestConnection.open(server.port())) {
            // kafka-clients will not build a request at a version it does not know: write the header
            // (v2, as ApiVersions v3+ uses) with the future version and a body a future client might send.
            var header = new RequestHeaderData()
                    .setRequestApiKey(ApiKeys.API_VERSIONS.id)
                    .setRequestApiVersion(futureVersion)
                    .setCorrelationId(42)
                    .setClientId("future-client");
            var body = new ApiVersionsRequestData()
                    .setClientSoftwareName("future-client")
                    .setClientSoftwareVersion("99.0");
            connection.writeFrame(
                    RequestUtils.serialize(header, (short) 2, body, ApiKeys.API_VERSIONS.latestVersion()));

            ByteBuffer frame = connection.readFrame();
            // ApiVersions responses always have header v0: just the correlation id.
            assertThat(ResponseHeader.parse(frame, (short) 0).correlationId()).isEqualTo(42);
            var v0 = new ApiVersionsResponseData(new ByteBufferAccessor(frame), (short) 0);

            assertThat(frame.remaining()).as("bytes left after a v0 body").isZero();
            assertThat(Errors.forCode(v0.errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
            assertThat(v0.apiKeys())
                    .extracting(
                            ApiVersionsResponseData.ApiVersion::apiKey,
                            ApiVersionsResponseData.ApiVersion::minVersion,
                            ApiVersionsResponseData.ApiVersion::maxVersion)
                    .containsExactlyInAnyOrder(
                            tuple(ApiKeys.METADATA.id, (short) 4, (short) 12),
                            tuple(
                                    ApiKeys.API_VERSIONS.id,
                                    ApiKeys.API_VERSIONS.oldestVersion(),
                                    ApiKeys.API_VERSIONS.latestVersion()));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolServerConfig.ConnectionThreads.class)
    void eachConnectionIsServedOnTheKindOfThreadConfigured(ProtocolServerConfig.ConnectionThreads kind)
            throws Exception {
        var threads = config.withConnectionThreads(kind);
        var served = new CopyOnWriteArrayList<Boolean>();
        RequestHandler metadata = TestHandlers.metadataOfOneNode(() -> 9092);
        try (var server = start(threads, registry, handler(ApiKeys.METADATA, 0, 12, request -> {
                    served.add(Thread.currentThread().isVirtual());
                    return metadata.handle(request);
                }));
                var first = KafkaTestConnection.open(server.port());
                var second = KafkaTestConnection.open(server.port())) {
            for (var connection : List.of(first, second, first)) {
                var response = connection.roundTrip(
                        MetadataRequest.Builder.allTopics().build((short) 12), MetadataResponse.class);
                assertThat(response.brokers()).hasSize(1);
            }
        }
        // This listener has no TLS: auto (the default) serves it on virtual threads.
        boolean virtual = kind != ProtocolServerConfig.ConnectionThreads.PLATFORM;
        assertThat(served).containsExactly(virtual, virtual, virtual);
    }

    @Test
    void apiVersionsWithAnInvalidClientSoftwareNameIsAnsweredInvalidRequest() throws Exception {
        try (var server = start(config, registry);
                var connection = KafkaTestConnection.open(server.port())) {
            var data = new ApiVersionsRequestData()
                    .setClientSoftwareName("not a valid name!")
                    .setClientSoftwareVersion("1.0");
            short version = ApiKeys.API_VERSIONS.latestVersion();

            var response = connection.roundTrip(
                    new ApiVersionsRequest.Builder(data, version, version).build(version), ApiVersionsResponse.class);

            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.INVALID_REQUEST);
        }
    }

    @Test
    void requestForAnApiWithoutHandlerIsAnsweredUnsupportedVersionAndTheConnectionKeepsWorking() throws Exception {
        try (var server = start(config, registry, TestHandlers.metadataOfOneNode(() -> 9092));
                var connection = KafkaTestConnection.open(server.port())) {

            var fetch = connection.roundTrip(TestRequests.latestFetch(), FetchResponse.class);

            assertThat(fetch.error()).isEqualTo(Errors.UNSUPPORTED_VERSION);
            assertThat(Errors.forCode(connection.apiVersions().data().errorCode()))
                    .isEqualTo(Errors.NONE);
        }
    }

    @Test
    void versionOutsideTheHandlersRangeIsAnsweredUnsupportedVersionWithoutCallingTheHandler() throws Exception {
        var calls = new AtomicInteger();
        try (var server = start(config, registry, handler(ApiKeys.DESCRIBE_CLUSTER, 1, 2, request -> {
                    calls.incrementAndGet();
                    return describeClusterOk(request);
                }));
                var connection = KafkaTestConnection.open(server.port())) {

            var tooOld = connection.roundTrip(TestRequests.describeCluster(0), DescribeClusterResponse.class);
            var inRange = connection.roundTrip(TestRequests.describeCluster(1), DescribeClusterResponse.class);

            assertThat(Errors.forCode(tooOld.data().errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
            assertThat(Errors.forCode(inRange.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(calls).hasValue(1);
        }
    }

    @Test
    void handlerThatThrowsIsAnsweredUnknownServerErrorAndTheConnectionStaysOpen() throws Exception {
        try (var server = start(config, registry, handler(ApiKeys.DESCRIBE_CLUSTER, 0, 2, request -> {
                    throw new IllegalStateException("a bug in the handler");
                }));
                var connection = KafkaTestConnection.open(server.port())) {

            var response = connection.roundTrip(TestRequests.describeCluster(2), DescribeClusterResponse.class);

            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
            assertThat(Errors.forCode(connection.apiVersions().data().errorCode()))
                    .isEqualTo(Errors.NONE);
        }
    }

    @Test
    void handlerThatThrowsAKafkaApiExceptionIsAnsweredWithTheErrorCodeKafkaMapsItToAndTheConnectionStaysOpen()
            throws Exception {
        try (var server = start(config, registry, handler(ApiKeys.DESCRIBE_CLUSTER, 0, 2, request -> {
                    throw new ClusterAuthorizationException("not allowed");
                }));
                var connection = KafkaTestConnection.open(server.port())) {

            var response = connection.roundTrip(TestRequests.describeCluster(2), DescribeClusterResponse.class);

            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED);
            assertThat(Errors.forCode(connection.apiVersions().data().errorCode()))
                    .isEqualTo(Errors.NONE);
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInRequestOrder() throws Exception {
        try (var server = start(
                        config,
                        registry,
                        handler(ApiKeys.DESCRIBE_CLUSTER, 0, 2, TestHandlers::describeClusterOk),
                        TestHandlers.metadataOfOneNode(() -> 9092));
                var connection = KafkaTestConnection.open(server.port())) {
            List<AbstractRequest> requests = List.of(
                    new ApiVersionsRequest.Builder().build(),
                    TestRequests.describeCluster(2),
                    MetadataRequest.Builder.allTopics().build(ApiKeys.METADATA.latestVersion()),
                    TestRequests.latestFetch(),
                    TestRequests.describeCluster(1),
                    new ApiVersionsRequest.Builder().build((short) 0));
            List<RequestHeader> headers = new ArrayList<>();
            for (AbstractRequest request : requests) {
                headers.add(connection.send(request));
            }

            List<Integer> correlationIds = new ArrayList<>();
            for (RequestHeader header : headers) {
                ByteBuffer frame = connection.readFrame();
                correlationIds.add(frame.getInt(0));
                assertThat(AbstractResponse.parseResponse(frame, header).apiKey())
                        .isEqualTo(header.apiKey());
            }

            assertThat(correlationIds)
                    .containsExactlyElementsOf(
                            headers.stream().map(RequestHeader::correlationId).toList());
        }
    }

    @Test
    void pipelinedResponsesStayInRequestOrderWhenAnEarlierRequestsHandlerIsSlower() throws Exception {
        var slowHandlerEntered = new CountDownLatch(1);
        var releaseSlowHandler = new CountDownLatch(1);
        try (var server = start(
                        config,
                        registry,
                        handler(ApiKeys.DESCRIBE_CLUSTER, 0, 2, request -> {
                            slowHandlerEntered.countDown();
                            TestHandlers.awaitLatch(releaseSlowHandler);
                            return describeClusterOk(request);
                        }),
                        handler(ApiKeys.PRODUCE, 3, ApiKeys.PRODUCE.latestVersion(), TestHandlers::produceOk));
                var connection = KafkaTestConnection.open(server.port())) {
            RequestHeader slow = connection.send(TestRequests.describeCluster(2));
            TestHandlers.awaitLatch(slowHandlerEntered);
            RequestHeader fast1 = connection.send(new ApiVersionsRequest.Builder().build());
            RequestHeader fast2 = connection.send(TestRequests.produce(1));
            RequestHeader fast3 = connection.send(TestRequests.latestFetch());

            releaseSlowHandler.countDown();

            assertThat(List.of(
                            connection.readFrame().getInt(0),
                            connection.readFrame().getInt(0),
                            connection.readFrame().getInt(0),
                            connection.readFrame().getInt(0)))
                    .containsExactly(
                            slow.correlationId(), fast1.correlationId(), fast2.correlationId(), fast3.correlationId());
        }
    }

    @Test
    void produceWithAcksZeroGetsNoResponseWhileTheNextRequestOnTheConnectionDoes() throws Exception {
        var produceCalls = new AtomicInteger();
        try (var server = start(
                        config, registry, handler(ApiKeys.PRODUCE, 3, ApiKeys.PRODUCE.latestVersion(), request -> {
                            produceCalls.incrementAndGet();
                            return produceOk(request);
                        }));
                var connection = KafkaTestConnection.open(server.port())) {
            connection.send(TestRequests.produce(0));
            RequestHeader apiVersions = connection.send(new ApiVersionsRequest.Builder().build());

            ByteBuffer firstResponse = connection.readFrame();

            assertThat(firstResponse.getInt(0))
                    .as("correlation id of the first response")
                    .isEqualTo(apiVersions.correlationId());
            assertThat(produceCalls).as("produce requests handled").hasValue(1);
        }
    }

    /*
     * An acks=0 produce that fails has no response to carry its error, so Kafka's broker closes the
     * connection: the producer notices, refreshes its metadata and retries. The listener does the same.
     */
    @Test
    void produceWithAcksZeroWhoseHandlerFailsClosesTheConnectionAndCountsTheError() throws Exception {
        try (var server = start(
                        config, registry, handler(ApiKeys.PRODUCE, 3, ApiKeys.PRODUCE.latestVersion(), request -> {
                            throw new NotLeaderOrFollowerException("moved");
                        }));
                var connection = KafkaTestConnection.open(server.port())) {
            connection.send(TestRequests.produce(0, TOPIC_ID));

            assertThat(connection.closedByServer())
                    .as("end of stream after a failed acks=0 produce")
                    .isTrue();
            eventually()
                    .untilAsserted(() -> assertThat(count(
                                    registry,
                                    "tributary.protocol.errors",
                                    "api",
                                    ApiKeys.PRODUCE.name,
                                    "error",
                                    Errors.NOT_LEADER_OR_FOLLOWER.name()))
                            .isEqualTo(1.0));
        }
    }

    @Test
    void produceWithAcksZeroForAnApiWithoutHandlerClosesTheConnection() throws Exception {
        try (var server = start(config, registry);
                var connection = KafkaTestConnection.open(server.port())) {
            connection.send(TestRequests.produce(0, TOPIC_ID));

            assertThat(connection.closedByServer())
                    .as("end of stream after an unsupported acks=0 produce")
                    .isTrue();
            eventually()
                    .untilAsserted(() -> assertThat(count(
                                    registry,
                                    "tributary.protocol.errors",
                                    "api",
                                    ApiKeys.PRODUCE.name,
                                    "error",
                                    Errors.UNSUPPORTED_VERSION.name()))
                            .isEqualTo(1.0));
        }
    }

    @Test
    void produceWithAcksOneIsAnswered() throws Exception {
        try (var server = start(
                        config,
                        registry,
                        handler(ApiKeys.PRODUCE, 3, ApiKeys.PRODUCE.latestVersion(), TestHandlers::produceOk));
                var connection = KafkaTestConnection.open(server.port())) {

            var response = connection.roundTrip(TestRequests.produce(1), ProduceResponse.class);

            assertThat(response.errorCounts()).doesNotContainKey(Errors.UNSUPPORTED_VERSION);
        }
    }

    @Test
    void serverRejectsTwoHandlersForOneApi() {
        var handlers = List.of(
                handler(ApiKeys.METADATA, 0, 12, request -> null), handler(ApiKeys.METADATA, 1, 4, request -> null));

        assertThatThrownBy(() -> new KafkaProtocolServer(config, handlers, new ProtocolMetrics(registry, "test")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two handlers for " + ApiKeys.METADATA);
    }

    @Test
    void serverRejectsAHandlerForApiVersions() {
        var handlers = List.of(handler(ApiKeys.API_VERSIONS, 0, 3, request -> null));

        assertThatThrownBy(() -> new KafkaProtocolServer(config, handlers, new ProtocolMetrics(registry, "test")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ApiVersions");
    }

    /**
     * Two listeners sharing one handler (a broker's internal and external listener): each request
     * names the listener it came in on, which is how a handler answers with that listener's
     * addresses.
     */
    @Test
    void aHandlerLearnsTheListenerEachRequestCameInOn() throws Exception {
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        RequestHandler recording = handler(ApiKeys.DESCRIBE_CLUSTER, 0, 1, request -> {
            seen.add(request.listener() + "/" + request.connection().listener());
            return describeClusterOk(request);
        });
        try (var internal = start(ProtocolServerConfig.defaults("kafka", "127.0.0.1", 0), registry, recording);
                var external = start(ProtocolServerConfig.defaults("external", "127.0.0.1", 0), registry, recording);
                var toInternal = KafkaTestConnection.open(internal.port());
                var toExternal = KafkaTestConnection.open(external.port())) {

            toExternal.roundTrip(TestRequests.describeCluster(0), DescribeClusterResponse.class);
            toInternal.roundTrip(TestRequests.describeCluster(0), DescribeClusterResponse.class);
            toExternal.roundTrip(TestRequests.describeCluster(1), DescribeClusterResponse.class);
        }

        assertThat(seen).containsExactly("external/external", "kafka/kafka", "external/external");
    }
}
