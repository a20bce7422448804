package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.ClassicJoin;
import io.tributary.coordinator.group.ClassicProtocol;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.classic.ClassicJoinResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;

/**
 * JoinGroup (API 11), versions 0 to 9: the classic protocol's join, served by {@link
 * io.tributary.coordinator.group.classic.ClassicGroupCoordinator}. The answer waits (this
 * connection's virtual thread parks) until the rebalance's join barrier completes, at most the
 * member's rebalance timeout (capped by {@code groups.classic.max-rebalance-timeout}); in version 0
 * the session timeout is the rebalance timeout. From version 4 a new dynamic member first gets
 * MEMBER_ID_REQUIRED with its member id (KIP-394); from 9 a static leader that joined again without
 * a change gets {@code SkipAssignment}. The member's client host is written as Kafka writes it
 * ({@code /127.0.0.1}). Errors are the response's error code, with the request's
 * member id (MEMBER_ID_REQUIRED: the new one).
 *
 * <p>Thread-safe.
 */
public final class JoinGroupHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.JOIN_GROUP, 0, 9);

    private final GroupService service;

    public JoinGroupHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        JoinGroupRequestData data = request.body(JoinGroupRequest.class).data();
        short version = request.header().apiVersion();
        ClassicJoinResult result;
        try {
            service.requireLeader();
            List<ClassicProtocol> protocols = new ArrayList<>();
            for (var protocol : data.protocols()) {
                protocols.add(new ClassicProtocol(protocol.name(), protocol.metadata()));
            }
            int rebalanceTimeoutMs = version >= 1 ? data.rebalanceTimeoutMs() : data.sessionTimeoutMs();
            ClassicJoin join = new ClassicJoin(
                    data.groupId(),
                    data.memberId(),
                    Optional.ofNullable(data.groupInstanceId()),
                    data.protocolType(),
                    protocols,
                    data.sessionTimeoutMs(),
                    rebalanceTimeoutMs,
                    Optional.ofNullable(request.header().clientId()).orElse(""),
                    "/" + request.connection().remoteAddress().getAddress().getHostAddress(),
                    version >= 4,
                    version >= 9);
            var answer = service.joinClassic(join);
            service.flushClassicStores();
            // The group's rebalance timeout (its members' largest, capped) bounds the wait, not
            // this member's own: the state machine answers by then at the latest.
            result = ClassicWaits.await(
                    answer,
                    service.classic().config().maxRebalanceTimeout().toMillis(),
                    ClassicJoinResult.failed(Errors.REBALANCE_IN_PROGRESS, data.memberId()));
        } catch (GroupException e) {
            return error(e.error(), data.memberId(), version);
        }
        return response(result, version);
    }

    private static JoinGroupResponse response(ClassicJoinResult result, short version) {
        if (result.error() != Errors.NONE) {
            return error(result.error(), result.memberId(), version);
        }
        var out = new JoinGroupResponseData()
                .setGenerationId(result.generationId())
                .setProtocolType(result.protocolType().orElse(null))
                .setProtocolName(result.protocolName().orElse(version >= 7 ? null : ""))
                .setLeader(result.leaderId())
                .setSkipAssignment(result.skipAssignment())
                .setMemberId(result.memberId());
        for (ClassicJoinResult.JoinedMember member : result.members()) {
            out.members()
                    .add(new JoinGroupResponseData.JoinGroupResponseMember()
                            .setMemberId(member.memberId())
                            .setGroupInstanceId(member.instanceId().orElse(null))
                            .setMetadata(member.metadata().metadata()));
        }
        return new JoinGroupResponse(out, version);
    }

    private static JoinGroupResponse error(Errors error, String memberId, short version) {
        return new JoinGroupResponse(
                new JoinGroupResponseData()
                        .setErrorCode(error.code())
                        .setGenerationId(JoinGroupRequest.UNKNOWN_GENERATION_ID)
                        .setProtocolName(version >= 7 ? null : "")
                        .setLeader("")
                        .setMemberId(memberId),
                version);
    }
}
