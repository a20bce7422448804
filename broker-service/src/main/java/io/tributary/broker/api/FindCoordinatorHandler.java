package io.tributary.broker.api;

import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.broker.cluster.GroupCoordinatorLocator.Lookup;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.FindCoordinatorAnswers;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.requests.FindCoordinatorResponse;

/**
 * FindCoordinator (API key 10), every version kafka-clients parses (0 to 6, batched from v4).
 * Consumer groups are served by the coordinators' Raft leader; clients reach it through the
 * brokers:
 *
 * <ul>
 *   <li>GROUP keys: this broker itself (its id and its endpoint on the listener the request came in
 *       on, so a client outside the cluster is told this broker's external address), which forwards every group
 *       request to the coordinator leader ({@link GroupForwardingHandler}), once {@link
 *       GroupCoordinatorLocator} knows a leader (cached; a request never waits longer than its
 *       bound). <b>Why not the coordinator's own address:</b> kafka-clients' AdminClient sends a
 *       group request to the coordinator node <i>by id, looked up in its Metadata</i> (its
 *       {@code ConstantNodeIdProvider}), so a coordinator that is not a broker of the Metadata is
 *       never reached (the request waits until it times out), and one whose id equals a broker's
 *       gets that broker. Answering a broker makes every client (consumer, AdminClient, other
 *       libraries that look the coordinator up among the brokers) talk to a node it knows. No leader
 *       known, the control plane not answering in time, or this broker not in its own Metadata
 *       yet: COORDINATOR_NOT_AVAILABLE with the reason; it is retriable, and clients ask again.
 *   <li>SHARE keys (KIP-932 share groups): COORDINATOR_NOT_AVAILABLE, "share groups are not
 *       supported".
 *   <li>TRANSACTION keys: INVALID_REQUEST, "transactions are not supported". Not retriable on purpose:
 *       kafka-clients' transactional producer looks its coordinator up first and, for any error but
 *       COORDINATOR_NOT_AVAILABLE and the two authorization ones, fails {@code initTransactions()} at
 *       once with a KafkaException that carries this message ("Could not find a coordinator with type
 *       TRANSACTION ... due to unexpected error: transactions are not supported ..."), instead of
 *       blocking until {@code max.block.ms} and reporting a bare timeout.
 *   <li>Any other key type: INVALID_REQUEST.
 * </ul>
 *
 * <p>Authorization (with an authorizer), before the coordinator is looked up, as Kafka's: a GROUP
 * key needs DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED), a TRANSACTION key DESCRIBE on the
 * transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED): from v4 each refused key has its own
 * error and no node, before v4 the refusal is the whole answer. SHARE keys need CLUSTER_ACTION on
 * the cluster, which Kafka checks by throwing: a refusal is the whole answer's
 * CLUSTER_AUTHORIZATION_FAILED, every key of the batch included.
 *
 * <p>Thread-safety: immutable; the suppliers are thread-safe.
 */
public final class FindCoordinatorHandler implements RequestHandler {

    /** This broker as clients of one listener reach it: its id and endpoint on that listener. */
    public record Self(int brokerId, String host, int port) {}

    private final Supplier<Lookup> groupCoordinator;
    private final Function<String, Optional<Self>> self;
    private final AccessControl acls;

    /**
     * This broker's id and endpoint on {@code listener} (a registered listener name) as its cluster
     * image lists it, if it does.
     */
    public static Optional<Self> self(MetadataView metadata, String listener) {
        int id = metadata.brokerId();
        return Optional.ofNullable(metadata.image().brokers().get(id))
                .flatMap(broker -> broker.endpoint(listener))
                .map(endpoint -> new Self(id, endpoint.host(), endpoint.port()));
    }

    /**
     * @param groupCoordinator where groups are served ({@link GroupCoordinatorLocator#lookup})
     * @param self this broker's id and endpoint on a listener (by registered name), once its
     *     Metadata lists it
     */
    public FindCoordinatorHandler(Supplier<Lookup> groupCoordinator, Function<String, Optional<Self>> self) {
        this(groupCoordinator, self, AccessControl.OPEN);
    }

    /** As above, with {@code acls} deciding who may look up which key. */
    public FindCoordinatorHandler(
            Supplier<Lookup> groupCoordinator, Function<String, Optional<Self>> self, AccessControl acls) {
        this.groupCoordinator = groupCoordinator;
        this.self = self;
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    static final String SHARE_GROUPS_NOT_SUPPORTED = "share groups are not supported by Tributary";

    static final String TRANSACTIONS_NOT_SUPPORTED =
            "transactions are not supported by Tributary yet: use an idempotent producer without transactional.id";

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.FIND_COORDINATOR,
                ApiKeys.FIND_COORDINATOR.oldestVersion(),
                ApiKeys.FIND_COORDINATOR.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        String listener = ClusterViews.listenerOf(request);
        FindCoordinatorRequest body = request.body(FindCoordinatorRequest.class);
        FindCoordinatorRequestData data = body.data();
        short version = request.header().apiVersion();
        byte keyType = version >= 1 ? data.keyType() : CoordinatorType.GROUP.id();
        ConnectionInfo caller = request.connection();
        if (keyType == CoordinatorType.SHARE.id()
                && !acls.allowed(
                        caller, AclOperation.CLUSTER_ACTION, AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME)) {
            return body.getErrorResponse(0, Errors.CLUSTER_AUTHORIZATION_FAILED.exception());
        }
        if (version < 4) {
            Errors refused = refusal(caller, keyType, data.key());
            if (refused != Errors.NONE) {
                return body.getErrorResponse(0, refused.exception());
            }
            return FindCoordinatorAnswers.respond(request, type -> answer(type, listener));
        }
        List<Errors> refusals = data.coordinatorKeys().stream()
                .map(key -> refusal(caller, keyType, key))
                .toList();
        // with every key refused the coordinator is not looked up: each answer is replaced below
        boolean anyAllowed = refusals.contains(Errors.NONE);
        FindCoordinatorResponse response = FindCoordinatorAnswers.respond(
                request, type -> anyAllowed ? answer(type, listener) : new Coordinator());
        for (int i = 0; i < refusals.size(); i++) {
            if (refusals.get(i) != Errors.NONE) {
                response.data()
                        .coordinators()
                        .get(i)
                        .setNodeId(ClusterViews.NO_NODE)
                        .setHost("")
                        .setPort(-1)
                        .setErrorCode(refusals.get(i).code())
                        .setErrorMessage(null);
            }
        }
        return response;
    }

    /** The error refusing the caller {@code key} of {@code keyType}, or NONE. */
    private Errors refusal(ConnectionInfo caller, byte keyType, String key) {
        if (keyType == CoordinatorType.GROUP.id()) {
            return acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.GROUP, key)
                    ? Errors.NONE
                    : Errors.GROUP_AUTHORIZATION_FAILED;
        }
        if (keyType == CoordinatorType.TRANSACTION.id()) {
            return acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.TRANSACTIONAL_ID, key)
                    ? Errors.NONE
                    : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        }
        return Errors.NONE;
    }

    private Coordinator answer(byte keyType, String listener) {
        if (keyType == CoordinatorType.GROUP.id()) {
            return switch (groupCoordinator.get()) {
                case Lookup.Found found ->
                    self.apply(listener)
                            .map(me -> new Coordinator()
                                    .setNodeId(me.brokerId())
                                    .setHost(me.host())
                                    .setPort(me.port())
                                    .setErrorCode(Errors.NONE.code())
                                    .setErrorMessage(null))
                            .orElseGet(() -> failed(new ApiError(
                                    Errors.COORDINATOR_NOT_AVAILABLE,
                                    "this broker is not in its cluster metadata yet: ask again")));
                case Lookup.NotAvailable missing ->
                    failed(new ApiError(
                            Errors.COORDINATOR_NOT_AVAILABLE, "no group coordinator known: " + missing.reason()));
            };
        }
        return failed(errorFor(keyType));
    }

    private static Coordinator failed(ApiError error) {
        return new Coordinator()
                .setNodeId(ClusterViews.NO_NODE)
                .setHost("")
                .setPort(-1)
                .setErrorCode(error.error().code())
                .setErrorMessage(error.message());
    }

    private static ApiError errorFor(byte keyType) {
        if (keyType == CoordinatorType.SHARE.id()) {
            return new ApiError(Errors.COORDINATOR_NOT_AVAILABLE, SHARE_GROUPS_NOT_SUPPORTED);
        }
        if (keyType == CoordinatorType.TRANSACTION.id()) {
            return new ApiError(Errors.INVALID_REQUEST, TRANSACTIONS_NOT_SUPPORTED);
        }
        return new ApiError(
                Errors.INVALID_REQUEST,
                "unknown coordinator key type " + keyType + "; known: " + List.of(CoordinatorType.values()));
    }
}
