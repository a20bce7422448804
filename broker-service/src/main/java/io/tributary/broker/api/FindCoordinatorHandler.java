package io.tributary.broker.api;

import io.tributary.broker.cluster.GroupCoordinatorLocator;
import io.tributary.broker.cluster.GroupCoordinatorLocator.Lookup;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
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
 * Consumer groups are served by the coordinators' Raft leader on its Kafka listener:
 *
 * <ul>
 *   <li>GROUP keys: the leader's Kafka endpoint with node id = its coordinator id (clients address a
 *       group coordinator as {@code Integer.MAX_VALUE - nodeId}, so it never collides with a broker
 *       id), as {@link GroupCoordinatorLocator} knows it (cached; a request never waits longer than
 *       its bound). No leader known, or the control plane not answering in time:
 *       COORDINATOR_NOT_AVAILABLE with the reason; it is retriable, and clients ask again.
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
 * <p>Thread-safety: immutable; the lookup is thread-safe.
 */
public final class FindCoordinatorHandler implements RequestHandler {

    private final Supplier<Lookup> groupCoordinator;

    /** @param groupCoordinator where groups are served ({@link GroupCoordinatorLocator#lookup}) */
    public FindCoordinatorHandler(Supplier<Lookup> groupCoordinator) {
        this.groupCoordinator = groupCoordinator;
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
        FindCoordinatorRequestData data =
                request.body(FindCoordinatorRequest.class).data();
        short version = request.header().apiVersion();
        Coordinator answer = answer(version >= 1 ? data.keyType() : CoordinatorType.GROUP.id());
        var response = new FindCoordinatorResponseData();
        if (version >= 4) {
            for (String key : data.coordinatorKeys()) {
                response.coordinators()
                        .add(new Coordinator()
                                .setKey(key)
                                .setNodeId(answer.nodeId())
                                .setHost(answer.host())
                                .setPort(answer.port())
                                .setErrorCode(answer.errorCode())
                                .setErrorMessage(answer.errorMessage()));
            }
        } else {
            response.setErrorCode(answer.errorCode())
                    .setErrorMessage(answer.errorMessage())
                    .setNodeId(answer.nodeId())
                    .setHost(answer.host())
                    .setPort(answer.port());
        }
        return new FindCoordinatorResponse(response);
    }

    private Coordinator answer(byte keyType) {
        if (keyType == CoordinatorType.GROUP.id()) {
            return switch (groupCoordinator.get()) {
                case Lookup.Found found ->
                    new Coordinator()
                            .setNodeId(found.coordinator().coordinatorId())
                            .setHost(found.coordinator().host())
                            .setPort(found.coordinator().port())
                            .setErrorCode(Errors.NONE.code())
                            .setErrorMessage(null);
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
