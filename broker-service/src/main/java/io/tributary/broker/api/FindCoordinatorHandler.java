package io.tributary.broker.api;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.List;
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
 * FindCoordinator (API key 10), every version kafka-clients parses (0 to 6, batched from v4). Until
 * the coordinators serve consumer groups there is no coordinator to point at:
 *
 * <ul>
 *   <li>GROUP and SHARE keys: COORDINATOR_NOT_AVAILABLE, with a message saying so. It is retriable:
 *       consumers and the AdminClient keep asking until their own timeouts, which is right for a
 *       feature that arrives with a later version of the cluster.
 *   <li>TRANSACTION keys: INVALID_REQUEST, "transactions are not supported". Not retriable on purpose:
 *       kafka-clients' transactional producer looks its coordinator up first and, for any error but
 *       COORDINATOR_NOT_AVAILABLE and the two authorization ones, fails {@code initTransactions()} at
 *       once with a KafkaException that carries this message ("Could not find a coordinator with type
 *       TRANSACTION ... due to unexpected error: transactions are not supported ..."), instead of
 *       blocking until {@code max.block.ms} and reporting a bare timeout.
 *   <li>Any other key type: INVALID_REQUEST.
 * </ul>
 *
 * <p>Thread-safety: stateless.
 */
public final class FindCoordinatorHandler implements RequestHandler {

    static final String GROUPS_NOT_SERVED =
            "consumer groups are not served by this Tributary cluster yet: no group coordinator";

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
        ApiError error = errorFor(version >= 1 ? data.keyType() : CoordinatorType.GROUP.id());
        var response = new FindCoordinatorResponseData();
        if (version >= 4) {
            for (String key : data.coordinatorKeys()) {
                response.coordinators()
                        .add(new Coordinator()
                                .setKey(key)
                                .setNodeId(ClusterViews.NO_NODE)
                                .setHost("")
                                .setPort(-1)
                                .setErrorCode(error.error().code())
                                .setErrorMessage(error.message()));
            }
        } else {
            response.setErrorCode(error.error().code())
                    .setErrorMessage(error.message())
                    .setNodeId(ClusterViews.NO_NODE)
                    .setHost("")
                    .setPort(-1);
        }
        return new FindCoordinatorResponse(response);
    }

    private static ApiError errorFor(byte keyType) {
        if (keyType == CoordinatorType.GROUP.id() || keyType == CoordinatorType.SHARE.id()) {
            return new ApiError(Errors.COORDINATOR_NOT_AVAILABLE, GROUPS_NOT_SERVED);
        }
        if (keyType == CoordinatorType.TRANSACTION.id()) {
            return new ApiError(Errors.INVALID_REQUEST, TRANSACTIONS_NOT_SUPPORTED);
        }
        return new ApiError(
                Errors.INVALID_REQUEST,
                "unknown coordinator key type " + keyType + "; known: " + List.of(CoordinatorType.values()));
    }
}
