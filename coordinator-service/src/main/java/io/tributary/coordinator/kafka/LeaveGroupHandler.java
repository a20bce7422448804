package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator.LeavingMember;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;

/**
 * LeaveGroup (API 13), versions 0 to 5: members leave a classic group; the others rebalance.
 * Versions 0-2 name one member id (its error is the response's); from 3 a batch of members by
 * member id and/or instance id (KIP-345: an admin client removes static members by instance id),
 * each with its own error (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID); version 5 carries a reason,
 * logged. An unknown group is UNKNOWN_MEMBER_ID.
 *
 * <p>Thread-safe.
 */
public final class LeaveGroupHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.LEAVE_GROUP, 0, 5);

    private final GroupService service;

    public LeaveGroupHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        LeaveGroupRequestData data = request.body(LeaveGroupRequest.class).data();
        short version = request.header().apiVersion();
        List<LeavingMember> leaving = new ArrayList<>();
        if (version < 3) {
            leaving.add(new LeavingMember(data.memberId(), Optional.empty()));
        } else {
            for (var member : data.members()) {
                leaving.add(new LeavingMember(member.memberId(), Optional.ofNullable(member.groupInstanceId())));
            }
        }
        List<MemberResponse> members = new ArrayList<>();
        try {
            service.requireLeader();
            if (data.groupId().isEmpty()) {
                throw new GroupException(Errors.INVALID_GROUP_ID, "the group id is empty");
            }
            List<Errors> errors = service.leaveClassic(data.groupId(), leaving);
            service.flushClassicStores();
            for (int i = 0; i < leaving.size(); i++) {
                members.add(new MemberResponse()
                        .setMemberId(leaving.get(i).memberId())
                        .setGroupInstanceId(leaving.get(i).instanceId().orElse(null))
                        .setErrorCode(errors.get(i).code()));
            }
        } catch (GroupException e) {
            return new LeaveGroupResponse(
                    new LeaveGroupResponseData().setErrorCode(e.error().code()));
        }
        return new LeaveGroupResponse(members, Errors.NONE, 0, version);
    }
}
