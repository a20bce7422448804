package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupException;
import java.util.Optional;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;

/**
 * Heartbeat (API 12), versions 0 to 4: a classic member keeps its session. REBALANCE_IN_PROGRESS
 * tells it to join again; ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID and FENCED_INSTANCE_ID that it is
 * out of the group.
 *
 * <p>Thread-safe.
 */
public final class HeartbeatHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.HEARTBEAT, 0, 4);

    private final GroupService service;

    public HeartbeatHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        HeartbeatRequestData data = request.body(HeartbeatRequest.class).data();
        Errors error = Errors.NONE;
        try {
            service.requireLeader();
            if (data.groupId().isEmpty()) {
                throw new GroupException(Errors.INVALID_GROUP_ID, "the group id is empty");
            }
            service.heartbeatClassic(
                    data.groupId(), data.memberId(), Optional.ofNullable(data.groupInstanceId()), data.generationId());
        } catch (GroupException e) {
            error = e.error();
        } finally {
            // the group's due timers ran first: a member they removed is written before the answer
            service.flushClassicStores();
        }
        return new HeartbeatResponse(new HeartbeatResponseData().setErrorCode(error.code()));
    }
}
