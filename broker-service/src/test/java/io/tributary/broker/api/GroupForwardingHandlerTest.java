package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.broker.cluster.CoordinatorGroupsClient;
import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.protocol.RequestWaits;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatRequest;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A broker's group forwarding against a fake coordinator listener (a real {@link
 * KafkaProtocolServer} on 127.0.0.1 whose group handlers record what they get and, when the test
 * closes an API's gate, hold the request until the test opens it): the request goes through as it
 * is (API, version, client id, body) over reused connections, the answer comes back, NOT_COORDINATOR
 * is passed on and drops the cached location, and an unreachable or unknown coordinator is the
 * request's own COORDINATOR_NOT_AVAILABLE. The classic group protocol's JoinGroup and SyncGroup
 * wait on the coordinator past the ordinary read timeout (their rebalance wait), every other
 * request does not.
 */
class GroupForwardingHandlerTest {

    /** The ordinary read timeout of the long-poll tests: short, so waiting past it is quick. */
    private static final Duration SHORT_READ_TIMEOUT = Duration.ofMillis(200);

    /** How long a gated fake handler holds a request at most (the test opens the gate long before). */
    private static final Duration GATE_BOUND = Duration.ofSeconds(60);

    private record Received(
            ApiKeys api, short version, String clientId, String connectionId, List<String> groups, long arrivedNanos) {}

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicReference<Errors> answer = new AtomicReference<>(Errors.NONE);
    private final Map<ApiKeys, CountDownLatch> gates = new ConcurrentHashMap<>();
    private final FakeControlPlane coordinators = new FakeControlPlane();
    private KafkaProtocolServer coordinator;

    /** One group API of the fake coordinator: records the request, waits at its gate, answers. */
    private final class FakeGroupApi<R extends AbstractRequest> implements RequestHandler {
        private final ApiVersionRange versions;
        private final Class<R> type;
        private final BiFunction<R, Errors, List<String>> groups;
        private final BiFunction<R, Errors, AbstractResponse> respond;

        FakeGroupApi(
                ApiVersionRange versions,
                Class<R> type,
                BiFunction<R, Errors, List<String>> groups,
                BiFunction<R, Errors, AbstractResponse> respond) {
            this.versions = versions;
            this.type = type;
            this.groups = groups;
            this.respond = respond;
        }

        @Override
        public ApiVersionRange versions() {
            return versions;
        }

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            R body = request.body(type);
            received.add(new Received(
                    request.header().apiKey(),
                    request.header().apiVersion(),
                    request.header().clientId(),
                    request.connection().id(),
                    groups.apply(body, answer.get()),
                    System.nanoTime()));
            CountDownLatch gate = gates.get(versions.apiKey());
            if (gate != null) {
                try {
                    gate.await(GATE_BOUND.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return respond.apply(body, answer.get());
        }
    }

    private List<RequestHandler> fakeCoordinatorApis() {
        return List.of(
                new FakeGroupApi<>(
                        ApiVersionRange.of(ApiKeys.STREAMS_GROUP_HEARTBEAT, 0, 1),
                        StreamsGroupHeartbeatRequest.class,
                        (request, error) -> List.of(request.data().groupId()),
                        (request, error) -> new StreamsGroupHeartbeatResponse(new StreamsGroupHeartbeatResponseData()
                                .setErrorCode(error.code())
                                .setMemberId(request.data().memberId())
                                .setMemberEpoch(7)
                                .setActiveTasks(List.of(new StreamsGroupHeartbeatResponseData.TaskIds()
                                        .setSubtopologyId("0")
                                        .setPartitions(List.of(0, 1)))))),
                new FakeGroupApi<>(
                        ApiVersionRange.of(ApiKeys.DELETE_GROUPS, 0, 3),
                        DeleteGroupsRequest.class,
                        (request, error) -> List.copyOf(request.data().groupsNames()),
                        GroupForwardingHandlerTest::deleted),
                new FakeGroupApi<>(
                        ApiVersionRange.of(ApiKeys.JOIN_GROUP, 0, 9),
                        JoinGroupRequest.class,
                        (request, error) -> List.of(request.data().groupId()),
                        GroupForwardingHandlerTest::joined),
                new FakeGroupApi<>(
                        ApiVersionRange.of(ApiKeys.SYNC_GROUP, 0, 5),
                        SyncGroupRequest.class,
                        (request, error) -> List.of(request.data().groupId()),
                        (request, error) -> new SyncGroupResponse(new SyncGroupResponseData()
                                .setErrorCode(error.code())
                                .setProtocolType("consumer")
                                .setProtocolName("range")
                                .setAssignment(ASSIGNMENT))),
                new FakeGroupApi<>(
                        ApiVersionRange.of(ApiKeys.HEARTBEAT, 0, 4),
                        HeartbeatRequest.class,
                        (request, error) -> List.of(request.data().groupId()),
                        (request, error) ->
                                new HeartbeatResponse(new HeartbeatResponseData().setErrorCode(error.code()))),
                new FakeGroupApi<>(
                        ApiVersionRange.of(ApiKeys.LEAVE_GROUP, 0, 5),
                        LeaveGroupRequest.class,
                        (request, error) -> List.of(request.data().groupId()),
                        (request, error) -> new LeaveGroupResponse(
                                request.members().stream()
                                        .map(member -> new MemberResponse()
                                                .setMemberId(member.memberId())
                                                .setGroupInstanceId(member.groupInstanceId())
                                                .setErrorCode(error.code()))
                                        .toList(),
                                Errors.NONE,
                                0,
                                request.version())));
    }

    private static final byte[] ASSIGNMENT = {1, 2, 3};

    private static AbstractResponse deleted(DeleteGroupsRequest request, Errors error) {
        var results = new DeleteGroupsResponseData.DeletableGroupResultCollection();
        for (String group : request.data().groupsNames()) {
            results.add(new DeletableGroupResult().setGroupId(group).setErrorCode(error.code()));
        }
        return new DeleteGroupsResponse(new DeleteGroupsResponseData().setResults(results));
    }

    /** The coordinator's answer to a JoinGroup: generation 7, the member its own leader. */
    private static AbstractResponse joined(JoinGroupRequest request, Errors error) {
        String memberId = request.data().memberId().isEmpty()
                ? "member-1"
                : request.data().memberId();
        return new JoinGroupResponse(
                new JoinGroupResponseData()
                        .setErrorCode(error.code())
                        .setGenerationId(7)
                        .setProtocolType("consumer")
                        .setProtocolName("range")
                        .setLeader(memberId)
                        .setMemberId(memberId),
                request.version());
    }

    @BeforeEach
    void startCoordinator() {
        var config = ProtocolServerConfig.defaults("coordinator", "127.0.0.1", 0);
        coordinator = new KafkaProtocolServer(
                config, fakeCoordinatorApis(), new ProtocolMetrics(new SimpleMeterRegistry(), config.name()));
        coordinator.start();
        coordinators.groupCoordinator(Optional.of(new GroupCoordinator(0, "127.0.0.1", coordinator.port())));
    }

    @AfterEach
    void stop() {
        gates.values().forEach(CountDownLatch::countDown);
        coordinator.close();
    }

    private GroupCoordinatorLocator locator() {
        return new GroupCoordinatorLocator(
                coordinators, InstantSource.system(), GroupCoordinatorLocator.Config.DEFAULTS);
    }

    private static CoordinatorGroupsClient client() {
        return client(Duration.ofSeconds(2), Duration.ofMinutes(15));
    }

    private static CoordinatorGroupsClient client(Duration readTimeout, Duration maxRebalanceWait) {
        return new CoordinatorGroupsClient(
                new CoordinatorGroupsClient.Config(Duration.ofSeconds(1), readTimeout, 1 << 20, maxRebalanceWait), 4);
    }

    private static GroupForwardingHandler forwarder(
            ApiKeys api, GroupCoordinatorLocator locator, CoordinatorGroupsClient client) {
        return GroupForwardingHandler.all(locator, client).stream()
                .filter(h -> h.versions().apiKey() == api)
                .findFirst()
                .orElseThrow(() -> new AssertionError(api + " is not forwarded"));
    }

    private static GroupForwardingHandler deleteGroups(
            GroupCoordinatorLocator locator, CoordinatorGroupsClient client) {
        return forwarder(ApiKeys.DELETE_GROUPS, locator, client);
    }

    private static DeleteGroupsResponse delete(GroupForwardingHandler handler, int version, String... groups) {
        return Wire.call(
                handler,
                new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData().setGroupsNames(List.of(groups))),
                version);
    }

    private static Errors errorOf(DeleteGroupsResponse response, String group) {
        return Errors.forCode(response.data().results().find(group).errorCode());
    }

    // The classic group protocol's requests, as kafka-clients' consumer sends them.

    private static JoinGroupRequest.Builder join(String memberId, int sessionTimeoutMs, int rebalanceTimeoutMs) {
        var protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[] {0, 3}));
        return new JoinGroupRequest.Builder(new JoinGroupRequestData()
                .setGroupId("classic")
                .setMemberId(memberId)
                .setSessionTimeoutMs(sessionTimeoutMs)
                .setRebalanceTimeoutMs(rebalanceTimeoutMs)
                .setProtocolType("consumer")
                .setProtocols(protocols));
    }

    private static SyncGroupRequest.Builder sync() {
        return new SyncGroupRequest.Builder(new SyncGroupRequestData()
                .setGroupId("classic")
                .setMemberId("member-1")
                .setGenerationId(7)
                .setProtocolType("consumer")
                .setProtocolName("range"));
    }

    private static HeartbeatRequest.Builder heartbeat() {
        return new HeartbeatRequest.Builder(new HeartbeatRequestData()
                .setGroupId("classic")
                .setMemberId("member-1")
                .setGenerationId(7));
    }

    private static LeaveGroupRequest.Builder leave() {
        return new LeaveGroupRequest.Builder("classic", List.of(new MemberIdentity().setMemberId("member-1")));
    }

    /** A request as the broker's listener has it: serialized at {@code version} and parsed back. */
    private static AbstractRequest onTheWire(AbstractRequest.Builder<?> builder, int version) {
        AbstractRequest built = builder.build((short) version);
        return AbstractRequest.parseRequest(built.apiKey(), built.version(), built.serialize()).request;
    }

    @Test
    void theRequestGoesThroughAsItIsAndTheAnswerComesBackOverOneReusedConnection() {
        GroupForwardingHandler handler = deleteGroups(locator(), client());

        DeleteGroupsResponse first = delete(handler, 2, "a", "b");
        DeleteGroupsResponse second = delete(handler, 3, "c");

        assertThat(errorOf(first, "a")).isEqualTo(Errors.NONE);
        assertThat(errorOf(second, "c")).isEqualTo(Errors.NONE);
        assertThat(received)
                .extracting(Received::version, Received::clientId, Received::groups)
                .containsExactly(
                        tuple((short) 2, "test-client", List.of("a", "b")),
                        tuple((short) 3, "test-client", List.of("c")));
        assertThat(received.get(0).connectionId())
                .as("the second forward reuses the first one's connection")
                .isEqualTo(received.get(1).connectionId());
    }

    /**
     * The time a forward waits on the coordinator is the request's wait, not its work: a request
     * the coordinator holds (a JoinGroup until its rebalance completes) does not use up the
     * caller's request_percentage quota.
     */
    @Test
    void theTimeAForwardWaitsOnTheCoordinatorIsReportedAsTheRequestsWait() {
        CountDownLatch gate = new CountDownLatch(1);
        gates.put(ApiKeys.DELETE_GROUPS, gate);
        GroupForwardingHandler handler = deleteGroups(locator(), client());

        CompletableFuture<RequestWaits.Measured<DeleteGroupsResponse>> measured = CompletableFuture.supplyAsync(
                () -> RequestWaits.measure(() -> delete(handler, 2, "a")), Thread.ofVirtual()::start);
        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        long arrived = received.getFirst().arrivedNanos();
        Duration held = Duration.ofMillis(300);
        await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - arrived > held.toNanos());
        gate.countDown();

        RequestWaits.Measured<DeleteGroupsResponse> result = measured.join();
        assertThat(errorOf(result.result(), "a")).isEqualTo(Errors.NONE);
        assertThat(result.waitedNanos())
                .as("at least the time the coordinator held the request")
                .isGreaterThanOrEqualTo(held.toNanos());
        assertThat(result.waitedNanos()).isLessThanOrEqualTo(result.elapsedNanos());
    }

    @Test
    void notCoordinatorIsPassedOnAndTheCachedLocationDropped() {
        FakeControlPlane counting = coordinators;
        GroupCoordinatorLocator locator = locator();
        GroupForwardingHandler handler = deleteGroups(locator, client());
        delete(handler, 2, "a");
        int lookupsBefore = counting.groupCoordinatorLookups();

        answer.set(Errors.NOT_COORDINATOR);
        assertThat(errorOf(delete(handler, 2, "a"), "a")).isEqualTo(Errors.NOT_COORDINATOR);
        answer.set(Errors.NONE);
        assertThat(errorOf(delete(handler, 2, "a"), "a")).isEqualTo(Errors.NONE);

        assertThat(counting.groupCoordinatorLookups())
                .as("the location was looked up again")
                .isGreaterThan(lookupsBefore);
    }

    @Test
    void anUnreachableOrUnknownCoordinatorIsCoordinatorNotAvailable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        coordinators.groupCoordinator(Optional.of(new GroupCoordinator(0, "127.0.0.1", closedPort)));
        assertThat(errorOf(delete(deleteGroups(locator(), client()), 2, "a"), "a"))
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);

        coordinators.groupCoordinator(Optional.empty());
        assertThat(errorOf(delete(deleteGroups(locator(), client()), 2, "a"), "a"))
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(received).isEmpty();
    }

    @Test
    void theClassicGroupApisAreForwardedAtEveryVersionTheCoordinatorServes() {
        assertThat(GroupForwardingHandler.FORWARDED)
                .contains(
                        ApiVersionRange.of(ApiKeys.JOIN_GROUP, 0, 9),
                        ApiVersionRange.of(ApiKeys.SYNC_GROUP, 0, 5),
                        ApiVersionRange.of(ApiKeys.HEARTBEAT, 0, 4),
                        ApiVersionRange.of(ApiKeys.LEAVE_GROUP, 0, 5));
        GroupCoordinatorLocator locator = locator();
        CoordinatorGroupsClient client = client();

        for (int v = 0; v <= 9; v++) {
            JoinGroupResponse joined =
                    Wire.call(forwarder(ApiKeys.JOIN_GROUP, locator, client), join("member-1", 10_000, 30_000), v);
            assertThat(joined.data().errorCode()).as("JoinGroup v%d", v).isZero();
            assertThat(joined.data().memberId()).as("JoinGroup v%d", v).isEqualTo("member-1");
            assertThat(joined.data().generationId()).as("JoinGroup v%d", v).isEqualTo(7);
        }
        for (int v = 0; v <= 5; v++) {
            SyncGroupResponse synced = Wire.call(forwarder(ApiKeys.SYNC_GROUP, locator, client), sync(), v);
            assertThat(synced.data().errorCode()).as("SyncGroup v%d", v).isZero();
            assertThat(synced.data().assignment()).as("SyncGroup v%d", v).isEqualTo(ASSIGNMENT);
        }
        for (int v = 0; v <= 4; v++) {
            HeartbeatResponse beat = Wire.call(forwarder(ApiKeys.HEARTBEAT, locator, client), heartbeat(), v);
            assertThat(beat.error()).as("Heartbeat v%d", v).isEqualTo(Errors.NONE);
        }
        for (int v = 0; v <= 5; v++) {
            LeaveGroupResponse left = Wire.call(forwarder(ApiKeys.LEAVE_GROUP, locator, client), leave(), v);
            assertThat(left.topLevelError()).as("LeaveGroup v%d", v).isEqualTo(Errors.NONE);
            if (v >= 3) {
                assertThat(left.memberResponses())
                        .as("LeaveGroup v%d", v)
                        .extracting(MemberResponse::memberId)
                        .containsExactly("member-1");
            }
        }

        assertThat(received)
                .as("each request reached the coordinator once, at its own version, with the client's id")
                .extracting(Received::api, Received::version, Received::clientId)
                .containsExactlyElementsOf(Stream.of(
                                versions(ApiKeys.JOIN_GROUP, 9),
                                versions(ApiKeys.SYNC_GROUP, 5),
                                versions(ApiKeys.HEARTBEAT, 4),
                                versions(ApiKeys.LEAVE_GROUP, 5))
                        .flatMap(List::stream)
                        .toList());
    }

    @Test
    void streamsGroupHeartbeatsAreForwardedAtEveryVersionTheCoordinatorServesAndAnsweredAsItAnswers() {
        assertThat(GroupForwardingHandler.FORWARDED)
                .contains(
                        ApiVersionRange.of(ApiKeys.STREAMS_GROUP_HEARTBEAT, 0, 1),
                        ApiVersionRange.of(ApiKeys.STREAMS_GROUP_DESCRIBE, 0, 1));
        GroupCoordinatorLocator locator = locator();
        CoordinatorGroupsClient client = client();

        for (int v = 0; v <= 1; v++) {
            StreamsGroupHeartbeatResponse beat = Wire.call(
                    forwarder(ApiKeys.STREAMS_GROUP_HEARTBEAT, locator, client),
                    new StreamsGroupHeartbeatRequest.Builder(new StreamsGroupHeartbeatRequestData()
                            .setGroupId("app")
                            .setMemberId("member-1")
                            .setMemberEpoch(3)),
                    v);
            assertThat(beat.data().errorCode())
                    .as("StreamsGroupHeartbeat v%d", v)
                    .isZero();
            assertThat(beat.data().memberEpoch())
                    .as("StreamsGroupHeartbeat v%d", v)
                    .isEqualTo(7);
            assertThat(beat.data().activeTasks())
                    .as("StreamsGroupHeartbeat v%d", v)
                    .extracting(StreamsGroupHeartbeatResponseData.TaskIds::partitions)
                    .containsExactly(List.of(0, 1));
        }
        assertThat(received)
                .extracting(Received::api, Received::version, Received::groups)
                .containsExactly(
                        tuple(ApiKeys.STREAMS_GROUP_HEARTBEAT, (short) 0, List.of("app")),
                        tuple(ApiKeys.STREAMS_GROUP_HEARTBEAT, (short) 1, List.of("app")));
    }

    private static List<Tuple> versions(ApiKeys api, int latest) {
        return IntStream.rangeClosed(0, latest)
                .mapToObj(v -> tuple(api, (short) v, "test-client"))
                .toList();
    }

    @Test
    void theClassicGroupApisAreCoordinatorNotAvailableInTheirOwnShapeWhenTheCoordinatorCannotBeReached()
            throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        coordinators.groupCoordinator(Optional.of(new GroupCoordinator(0, "127.0.0.1", closedPort)));
        CoordinatorGroupsClient client = client();

        for (int v = 0; v <= 9; v++) {
            JoinGroupResponse joined =
                    Wire.call(forwarder(ApiKeys.JOIN_GROUP, locator(), client), join("member-1", 10_000, 30_000), v);
            assertThat(joined.error()).as("JoinGroup v%d", v).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
            assertThat(joined.data().generationId())
                    .as("JoinGroup v%d: no generation", v)
                    .isEqualTo(-1);
            assertThat(joined.data().memberId())
                    .as("JoinGroup v%d: no member id (the member keeps its own)", v)
                    .isEmpty();
        }
        for (int v = 0; v <= 5; v++) {
            SyncGroupResponse synced = Wire.call(forwarder(ApiKeys.SYNC_GROUP, locator(), client), sync(), v);
            assertThat(synced.error()).as("SyncGroup v%d", v).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
            assertThat(synced.data().assignment()).as("SyncGroup v%d", v).isEmpty();
        }
        for (int v = 0; v <= 4; v++) {
            HeartbeatResponse beat = Wire.call(forwarder(ApiKeys.HEARTBEAT, locator(), client), heartbeat(), v);
            assertThat(beat.error()).as("Heartbeat v%d", v).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        }
        for (int v = 0; v <= 5; v++) {
            LeaveGroupResponse left = Wire.call(forwarder(ApiKeys.LEAVE_GROUP, locator(), client), leave(), v);
            assertThat(left.topLevelError())
                    .as("LeaveGroup v%d: the top-level error, which kafka-clients reads first", v)
                    .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
            assertThat(left.memberResponses()).as("LeaveGroup v%d", v).isEmpty();
        }
        assertThat(received).isEmpty();
    }

    @Test
    void notCoordinatorOnAJoinGroupIsPassedOnAndTheCachedLocationDropped() {
        GroupCoordinatorLocator locator = locator();
        GroupForwardingHandler handler = forwarder(ApiKeys.JOIN_GROUP, locator, client());
        Wire.call(handler, join("member-1", 10_000, 30_000), 9);
        int lookupsBefore = coordinators.groupCoordinatorLookups();

        answer.set(Errors.NOT_COORDINATOR);
        JoinGroupResponse refused = Wire.call(handler, join("member-1", 10_000, 30_000), 9);
        answer.set(Errors.NONE);
        JoinGroupResponse joined = Wire.call(handler, join("member-1", 10_000, 30_000), 9);

        assertThat(refused.error()).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(joined.error()).isEqualTo(Errors.NONE);
        assertThat(coordinators.groupCoordinatorLookups())
                .as("the location was looked up again")
                .isGreaterThan(lookupsBefore);
    }

    @Test
    void theReadTimeoutOfAForwardIsTheRebalanceWaitForJoinGroupAndSyncGroupAndTheConfiguredOneOtherwise() {
        CoordinatorGroupsClient client = client(Duration.ofSeconds(5), Duration.ofMinutes(15));
        Duration margin = Duration.ofSeconds(5);

        assertThat(client.readTimeout(onTheWire(join("m", 45_000, 300_000), 0)))
                .as("JoinGroup v0: the session timeout is the rebalance timeout")
                .isEqualTo(Duration.ofSeconds(45).plus(margin));
        for (int v = 1; v <= 9; v++) {
            assertThat(client.readTimeout(onTheWire(join("m", 45_000, 300_000), v)))
                    .as("JoinGroup v%d: its rebalance timeout", v)
                    .isEqualTo(Duration.ofMinutes(5).plus(margin));
        }
        assertThat(client.readTimeout(onTheWire(join("m", 45_000, 3_600_000), 9)))
                .as("JoinGroup: capped at max-rebalance-wait")
                .isEqualTo(Duration.ofMinutes(15).plus(margin));
        assertThat(client.readTimeout(onTheWire(join("m", 45_000, -1), 9)))
                .as("JoinGroup: a negative rebalance timeout waits nothing extra")
                .isEqualTo(margin);
        for (int v = 0; v <= 5; v++) {
            assertThat(client.readTimeout(onTheWire(sync(), v)))
                    .as("SyncGroup v%d: max-rebalance-wait", v)
                    .isEqualTo(Duration.ofMinutes(15).plus(margin));
        }
        for (int v = 0; v <= 4; v++) {
            assertThat(client.readTimeout(onTheWire(heartbeat(), v)))
                    .as("Heartbeat v%d", v)
                    .isEqualTo(margin);
        }
        for (int v = 0; v <= 5; v++) {
            assertThat(client.readTimeout(onTheWire(leave(), v)))
                    .as("LeaveGroup v%d", v)
                    .isEqualTo(margin);
        }
        assertThat(client.readTimeout(onTheWire(
                        new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData().setGroupsNames(List.of("g"))),
                        2)))
                .isEqualTo(margin);
    }

    /** A long poll the fake coordinator holds: its name, its API and the request at one version. */
    private record LongPoll(String name, ApiKeys api, AbstractRequest.Builder<?> request, int version) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<LongPoll> longPolls() {
        return List.of(
                new LongPoll("JoinGroup v0 (session timeout 60 s)", ApiKeys.JOIN_GROUP, join("m", 60_000, 0), 0),
                new LongPoll("JoinGroup v5 (rebalance timeout 60 s)", ApiKeys.JOIN_GROUP, join("m", 10_000, 60_000), 5),
                new LongPoll("JoinGroup v9 (rebalance timeout 60 s)", ApiKeys.JOIN_GROUP, join("m", 10_000, 60_000), 9),
                new LongPoll("SyncGroup v0", ApiKeys.SYNC_GROUP, sync(), 0),
                new LongPoll("SyncGroup v5", ApiKeys.SYNC_GROUP, sync(), 5));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("longPolls")
    void aLongPollWaitsPastTheReadTimeoutUntilTheCoordinatorAnswers(LongPoll poll) throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        gates.put(poll.api(), gate);
        GroupForwardingHandler handler =
                forwarder(poll.api(), locator(), client(SHORT_READ_TIMEOUT, Duration.ofMinutes(15)));

        CompletableFuture<AbstractResponse> answered = CompletableFuture.supplyAsync(
                () -> Wire.call(handler, poll.request(), poll.version()), Thread.ofVirtual()::start);
        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        long arrived = received.getFirst().arrivedNanos();
        Duration wellPast = SHORT_READ_TIMEOUT.multipliedBy(5);
        await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - arrived > wellPast.toNanos());

        assertThat(answered)
                .as(
                        "the broker still waits for the coordinator %s after it got the request (read timeout %s)",
                        wellPast, SHORT_READ_TIMEOUT)
                .isNotDone();
        gate.countDown();
        AbstractResponse response = answered.get(10, TimeUnit.SECONDS);
        assertThat(response.errorCounts()).as("the coordinator's answer").containsOnlyKeys(Errors.NONE);
        assertThat(received).hasSize(1);
    }

    @Test
    void eachForwardSetsItsOwnReadTimeoutOnAReusedConnection() throws Exception {
        CoordinatorGroupsClient client = client(SHORT_READ_TIMEOUT, Duration.ofMinutes(10));
        GroupForwardingHandler heartbeats = forwarder(ApiKeys.HEARTBEAT, locator(), client);
        GroupForwardingHandler joins = forwarder(ApiKeys.JOIN_GROUP, locator(), client);
        HeartbeatResponse first = Wire.call(heartbeats, heartbeat(), 4);
        assertThat(first.error()).isEqualTo(Errors.NONE);

        CountDownLatch joinGate = new CountDownLatch(1);
        gates.put(ApiKeys.JOIN_GROUP, joinGate);
        CompletableFuture<JoinGroupResponse> joined = CompletableFuture.supplyAsync(
                () -> Wire.call(joins, join("m", 10_000, 60_000), 9), Thread.ofVirtual()::start);
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2);
        long arrived = received.get(1).arrivedNanos();
        Duration wellPast = SHORT_READ_TIMEOUT.multipliedBy(5);
        await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - arrived > wellPast.toNanos());
        assertThat(joined)
                .as(
                        "the JoinGroup, on the heartbeat's connection, still waits %s after the coordinator got it",
                        wellPast)
                .isNotDone();
        joinGate.countDown();
        assertThat(joined.get(10, TimeUnit.SECONDS).error()).isEqualTo(Errors.NONE);

        gates.put(ApiKeys.HEARTBEAT, new CountDownLatch(1));
        CompletableFuture<HeartbeatResponse> held =
                CompletableFuture.supplyAsync(() -> Wire.call(heartbeats, heartbeat(), 4), Thread.ofVirtual()::start);
        // Far below the JoinGroup's 60-second wait, which the connection must not keep.
        assertThat(held.get(30, TimeUnit.SECONDS).error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);

        assertThat(received)
                .extracting(Received::api)
                .containsExactly(ApiKeys.HEARTBEAT, ApiKeys.JOIN_GROUP, ApiKeys.HEARTBEAT);
        assertThat(received)
                .extracting(Received::connectionId)
                .as("all three over one reused connection")
                .containsOnly(received.getFirst().connectionId());
    }

    /** A request the fake coordinator never answers, and how long the broker waits for it. */
    private record Held(
            String name,
            ApiKeys api,
            AbstractRequest.Builder<?> request,
            int version,
            Duration maxRebalanceWait,
            Duration expectedWait) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Held> held() {
        Duration rebalance = Duration.ofMillis(600);
        Duration longCap = Duration.ofMinutes(10);
        return List.of(
                new Held(
                        "JoinGroup v9: its rebalance timeout, 600 ms, plus the read timeout",
                        ApiKeys.JOIN_GROUP,
                        join("m", 10_000, (int) rebalance.toMillis()),
                        9,
                        longCap,
                        rebalance.plus(SHORT_READ_TIMEOUT)),
                new Held(
                        "JoinGroup v0: its session timeout, 600 ms, plus the read timeout",
                        ApiKeys.JOIN_GROUP,
                        join("m", (int) rebalance.toMillis(), 0),
                        0,
                        longCap,
                        rebalance.plus(SHORT_READ_TIMEOUT)),
                new Held(
                        "JoinGroup v9: its 10-minute rebalance timeout capped at max-rebalance-wait, 600 ms",
                        ApiKeys.JOIN_GROUP,
                        join("m", 10_000, (int) longCap.toMillis()),
                        9,
                        rebalance,
                        rebalance.plus(SHORT_READ_TIMEOUT)),
                new Held(
                        "SyncGroup v5: max-rebalance-wait, 600 ms, plus the read timeout",
                        ApiKeys.SYNC_GROUP,
                        sync(),
                        5,
                        rebalance,
                        rebalance.plus(SHORT_READ_TIMEOUT)),
                new Held(
                        "Heartbeat v4: the read timeout only",
                        ApiKeys.HEARTBEAT,
                        heartbeat(),
                        4,
                        longCap,
                        SHORT_READ_TIMEOUT),
                new Held(
                        "LeaveGroup v5: the read timeout only",
                        ApiKeys.LEAVE_GROUP,
                        leave(),
                        5,
                        longCap,
                        SHORT_READ_TIMEOUT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("held")
    void aRequestTheCoordinatorHoldsIsCoordinatorNotAvailableOnceItsReadTimeoutPasses(Held held) throws Exception {
        gates.put(held.api(), new CountDownLatch(1));
        GroupForwardingHandler handler =
                forwarder(held.api(), locator(), client(SHORT_READ_TIMEOUT, held.maxRebalanceWait()));

        long start = System.nanoTime();
        CompletableFuture<AbstractResponse> answered = CompletableFuture.supplyAsync(
                () -> Wire.call(handler, held.request(), held.version()), Thread.ofVirtual()::start);
        // Far below the 10-minute waits a wrong read timeout would give.
        AbstractResponse response = answered.get(30, TimeUnit.SECONDS);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);

        assertThat(response.errorCounts()).containsOnlyKeys(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(waited).as("the broker waited for the coordinator").isGreaterThanOrEqualTo(held.expectedWait());
        assertThat(received)
                .as("a timed-out request is not sent again (the coordinator may be working on it)")
                .hasSize(1);
    }
}
