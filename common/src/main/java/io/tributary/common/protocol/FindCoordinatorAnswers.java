package io.tributary.common.protocol;

import java.util.function.Function;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.requests.FindCoordinatorResponse;

/**
 * The shape of a FindCoordinator answer at every version, shared by the brokers' and the
 * coordinators' handlers, which differ only in who the coordinator of a key type is. Version 0 asks
 * for a group; versions 1-3 name the key type and get one answer at the top level; versions 4 and
 * later batch keys and get one {@code Coordinator} entry per key (all keys of a request share a key
 * type, and Tributary answers every key of a type alike).
 */
public final class FindCoordinatorAnswers {

    private FindCoordinatorAnswers() {}

    /**
     * Answers a FindCoordinator request.
     *
     * @param request the decoded request
     * @param answerFor the coordinator (node id, host, port, or an error code and message) for a
     *     key type ({@link CoordinatorType#id()}); its {@code key} is ignored
     */
    public static FindCoordinatorResponse respond(KafkaRequest request, Function<Byte, Coordinator> answerFor) {
        FindCoordinatorRequestData data =
                request.body(FindCoordinatorRequest.class).data();
        short version = request.header().apiVersion();
        Coordinator answer = answerFor.apply(version >= 1 ? data.keyType() : CoordinatorType.GROUP.id());
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
}
