package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupDescription;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.classic.ClassicGroupDescription;
import java.util.Optional;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;

/**
 * DescribeGroups (API 15), versions 0 to 6. A classic group as Kafka describes it: its state,
 * protocol type, and while Stable its protocol and each member's metadata and assignment (outside
 * Stable those are empty). A KIP-848 consumer group (also one with classic members) and a
 * streams group are not classic groups: answered as an unknown group, as Kafka 4.4 does (the peer
 * in ClassicGroupMigrationIT); ConsumerGroupDescribe and StreamsGroupDescribe describe them. A group with committed offsets only (Kafka's "simple" group, created by a
 * commit) is {@code Empty} with no protocol type or protocol. An unknown group is state {@code Dead} with no error before version 6 and
 * GROUP_ID_NOT_FOUND from 6 (KIP-1043), as Kafka answers.
 *
 * <p>Thread-safe.
 */
public final class DescribeGroupsHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.DESCRIBE_GROUPS, 0, 6);

    static final String DEAD = "Dead";

    private final GroupService service;

    public DescribeGroupsHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        DescribeGroupsRequestData data =
                request.body(DescribeGroupsRequest.class).data();
        short version = request.header().apiVersion();
        var response = new DescribeGroupsResponseData();
        Errors leaderError = Errors.NONE;
        try {
            service.requireLeader();
        } catch (GroupException e) {
            leaderError = e.error();
        }
        for (String groupId : data.groups()) {
            var described = new DescribedGroup()
                    .setGroupId(groupId)
                    .setGroupState("")
                    .setProtocolType("")
                    .setProtocolData("");
            if (leaderError != Errors.NONE) {
                described.setErrorCode(leaderError.code());
            } else if (!groupId.isEmpty() && service.classic().contains(groupId)) {
                service.classic()
                        .describe(groupId)
                        .ifPresentOrElse(
                                classic -> describeClassic(classic, described), () -> described.setGroupState(DEAD));
            } else {
                Optional<GroupDescription> group =
                        groupId.isEmpty() ? Optional.empty() : GroupViews.find(service, groupId);
                if (group.isEmpty() || !GroupViews.offsetsOnly(service, group.get())) {
                    // Kafka 4.4 describes classic groups only: a consumer (or mixed) or streams
                    // group is "not found" here, as the peer answers (ConsumerGroupDescribe
                    // and StreamsGroupDescribe describe them).
                    described.setGroupState(DEAD);
                    if (version >= 6) {
                        described
                                .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                                .setErrorMessage("Group " + groupId + " not found.");
                    }
                } else {
                    // Kafka's "simple" group (created by a commit): Empty, no protocol.
                    described.setGroupState(group.get().state());
                }
            }
            response.groups().add(described);
        }
        return new DescribeGroupsResponse(response);
    }

    private static void describeClassic(ClassicGroupDescription group, DescribedGroup out) {
        out.setGroupState(group.state().kafkaName())
                .setProtocolType(group.protocolType())
                .setProtocolData(group.protocolName());
        for (ClassicGroupDescription.Member member : group.members()) {
            out.members()
                    .add(new DescribeGroupsResponseData.DescribedGroupMember()
                            .setMemberId(member.memberId())
                            .setGroupInstanceId(member.instanceId().orElse(null))
                            .setClientId(member.clientId())
                            .setClientHost(member.clientHost())
                            .setMemberMetadata(member.metadata())
                            .setMemberAssignment(member.assignment()));
        }
    }
}
