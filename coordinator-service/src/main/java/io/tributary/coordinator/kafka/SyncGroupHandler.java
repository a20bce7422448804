package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.ProtocolCheck;
import io.tributary.coordinator.group.classic.ClassicSyncResult;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;

/**
 * SyncGroup (API 14), versions 0 to 5: the leader hands the generation's assignment in, every
 * member gets its part. In CompletingRebalance the answer waits until the leader's assignment is
 * stored through Raft (what keeps the group across a coordinator failover), at most the group's
 * rebalance timeout; in Stable it is immediate. Version 5 carries and checks the protocol type
 * and name (INCONSISTENT_GROUP_PROTOCOL, also when they are null: Kafka compares them as sent). A failed store answers NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE or UNKNOWN_SERVER_ERROR (a bound), and the group rebalances.
 *
 * <p>Thread-safe.
 */
public final class SyncGroupHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.SYNC_GROUP, 0, 5);

    private final GroupService service;

    public SyncGroupHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        SyncGroupRequestData data = request.body(SyncGroupRequest.class).data();
        short version = request.header().apiVersion();
        ClassicSyncResult result;
        try {
            service.requireLeader();
            if (data.groupId().isEmpty()) {
                throw new GroupException(Errors.INVALID_GROUP_ID, "the group id is empty");
            }
            Map<String, byte[]> assignments = new HashMap<>();
            for (var assignment : data.assignments()) {
                assignments.put(assignment.memberId(), assignment.assignment());
            }
            var answer = service.syncClassic(
                    data.groupId(),
                    data.memberId(),
                    Optional.ofNullable(data.groupInstanceId()),
                    data.generationId(),
                    version >= 5
                            ? Optional.of(new ProtocolCheck(
                                    Optional.ofNullable(data.protocolType()), Optional.ofNullable(data.protocolName())))
                            : Optional.empty(),
                    assignments);
            service.flushClassicStores();
            result = ClassicWaits.await(
                    answer,
                    service.classic().config().maxRebalanceTimeout().toMillis(),
                    new ClassicSyncResult(
                            Errors.REBALANCE_IN_PROGRESS, Optional.empty(), Optional.empty(), new byte[0]));
        } catch (GroupException e) {
            return error(e.error());
        }
        if (result.error() != Errors.NONE) {
            return error(result.error());
        }
        return new SyncGroupResponse(new SyncGroupResponseData()
                .setProtocolType(result.protocolType().orElse(null))
                .setProtocolName(result.protocolName().orElse(null))
                .setAssignment(result.assignment()));
    }

    private static SyncGroupResponse error(Errors error) {
        return new SyncGroupResponse(
                new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]));
    }
}
