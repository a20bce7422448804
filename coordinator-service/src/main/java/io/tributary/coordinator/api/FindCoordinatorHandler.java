package io.tributary.coordinator.api;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.CoordinatorNodeIds;
import io.tributary.common.protocol.FindCoordinatorAnswers;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/**
 * FindCoordinator (API key 10) on a coordinator's Kafka listener, versions 0 to 6 (batched keys from
 * v4): the group coordinator of every group is the metadata Raft leader, so a GROUP key is answered
 * with the leader's advertised Kafka address ({@code tributary.coordinator.kafka-peers}) and node id
 * {@link CoordinatorNodeIds#nodeId} of the leader's coordinator id ({@code 1_000_000_000 + id}), a
 * range broker ids may not use: kafka-clients' AdminClient connects to a coordinator under the node
 * id answered as is, so an answer equal to a broker id would send group requests to that broker.
 *
 * <ul>
 *   <li>GROUP, no leader known (an election): COORDINATOR_NOT_AVAILABLE, which clients retry.
 *   <li>SHARE (KIP-932 share groups): COORDINATOR_NOT_AVAILABLE, "share groups are not supported",
 *       as the brokers answer.
 *   <li>TRANSACTION: INVALID_REQUEST, "transactions are not supported" (not retriable on purpose: a
 *       transactional producer fails {@code initTransactions()} at once with this message; the
 *       brokers answer the same).
 *   <li>Any other key type: INVALID_REQUEST.
 * </ul>
 *
 * <p>Thread-safety: immutable; the leader is read on every request.
 */
public final class FindCoordinatorHandler implements RequestHandler {

    static final String NO_LEADER = "no coordinator leader is known right now (an election is running)";

    static final String SHARE_GROUPS_NOT_SUPPORTED = "share groups are not supported by Tributary";

    static final String TRANSACTIONS_NOT_SUPPORTED =
            "transactions are not supported by Tributary yet: use an idempotent producer without transactional.id";

    private record HostPort(String host, int port) {}

    private final Supplier<Optional<Integer>> leaderIndex;
    private final List<HostPort> kafkaPeers;

    /**
     * @param leaderIndex the index of the Raft leader among the voters, if one is known
     * @param kafkaPeers every voter's advertised Kafka {@code host:port}, in voter order
     */
    public FindCoordinatorHandler(Supplier<Optional<Integer>> leaderIndex, List<String> kafkaPeers) {
        this.leaderIndex = leaderIndex;
        List<HostPort> parsed = new ArrayList<>();
        for (String p : kafkaPeers) {
            int colon = p.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("a Kafka peer must be host:port, got '" + p + "'");
            }
            parsed.add(new HostPort(p.substring(0, colon), Integer.parseInt(p.substring(colon + 1))));
        }
        this.kafkaPeers = List.copyOf(parsed);
    }

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.FIND_COORDINATOR,
                ApiKeys.FIND_COORDINATOR.oldestVersion(),
                ApiKeys.FIND_COORDINATOR.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        return FindCoordinatorAnswers.respond(request, this::answer);
    }

    private Coordinator answer(byte keyType) {
        if (keyType == CoordinatorType.GROUP.id()) {
            Optional<Integer> leader = leaderIndex.get().filter(i -> i >= 0 && i < kafkaPeers.size());
            if (leader.isEmpty()) {
                return failed(Errors.COORDINATOR_NOT_AVAILABLE, NO_LEADER);
            }
            HostPort endpoint = kafkaPeers.get(leader.get());
            return new Coordinator()
                    .setNodeId(CoordinatorNodeIds.nodeId(leader.get()))
                    .setHost(endpoint.host())
                    .setPort(endpoint.port())
                    .setErrorCode(Errors.NONE.code())
                    .setErrorMessage(null);
        }
        if (keyType == CoordinatorType.SHARE.id()) {
            return failed(Errors.COORDINATOR_NOT_AVAILABLE, SHARE_GROUPS_NOT_SUPPORTED);
        }
        if (keyType == CoordinatorType.TRANSACTION.id()) {
            return failed(Errors.INVALID_REQUEST, TRANSACTIONS_NOT_SUPPORTED);
        }
        return failed(
                Errors.INVALID_REQUEST,
                "unknown coordinator key type " + keyType + "; known: " + List.of(CoordinatorType.values()));
    }

    private static Coordinator failed(Errors error, String message) {
        return new Coordinator()
                .setNodeId(-1)
                .setHost("")
                .setPort(-1)
                .setErrorCode(error.code())
                .setErrorMessage(message);
    }
}
