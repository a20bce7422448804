package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.GroupDescription;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.classic.ClassicGroupDescription;
import io.tributary.coordinator.group.streams.StreamsGroupDescription;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;

/**
 * ListGroups (API 16), versions 0 to 5: every group with membership here or committed offsets, with
 * its state (v4+) and type (v5+): a classic group (JoinGroup/SyncGroup) as {@code classic} with its
 * members' protocol type; {@code consumer} (protocol type {@code consumer}) for a group with
 * membership in memory, and, as Kafka lists a group that only has offsets (committed by an admin
 * client or an {@code assign()} consumer), {@code classic} with protocol type "" for one without
 * (after a coordinator failover that includes consumer groups whose members have not come back
 * yet); a streams group (KIP-1071) as {@code streams}, protocol type {@code streams}; {@code
 * StatesFilter} and {@code TypesFilter}
 * match case-insensitively, an empty filter matches all. A follower coordinator answers
 * NOT_COORDINATOR and no groups.
 *
 * <p>Thread-safe.
 */
public final class ListGroupsHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.LIST_GROUPS, 0, 5);

    private final GroupService service;

    public ListGroupsHandler(GroupService service) {
        this.service = service;
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        ListGroupsRequestData data = request.body(ListGroupsRequest.class).data();
        var response = new ListGroupsResponseData();
        try {
            service.requireLeader();
        } catch (GroupException e) {
            return new ListGroupsResponse(response.setErrorCode(e.error().code()));
        }
        Set<String> states = data.statesFilter().stream().map(GroupViews::lower).collect(Collectors.toSet());
        Set<String> types = data.typesFilter().stream().map(GroupViews::lower).collect(Collectors.toSet());
        for (ClassicGroupDescription group : service.classic().describeAll().values()) {
            if (!states.isEmpty()
                    && !states.contains(GroupViews.lower(group.state().kafkaName()))) {
                continue;
            }
            if (!types.isEmpty() && !types.contains(GroupViews.CLASSIC_TYPE)) {
                continue;
            }
            response.groups()
                    .add(new ListGroupsResponseData.ListedGroup()
                            .setGroupId(group.groupId())
                            .setProtocolType(group.protocolType())
                            .setGroupState(group.state().kafkaName())
                            .setGroupType(GroupViews.CLASSIC_TYPE));
        }
        for (StreamsGroupDescription group : service.streams().describeAll().values()) {
            if (!states.isEmpty() && !states.contains(GroupViews.lower(group.state()))) {
                continue;
            }
            if (!types.isEmpty() && !types.contains(GroupViews.STREAMS_TYPE)) {
                continue;
            }
            response.groups()
                    .add(new ListGroupsResponseData.ListedGroup()
                            .setGroupId(group.groupId())
                            .setProtocolType(GroupViews.STREAMS_TYPE)
                            .setGroupState(group.state())
                            .setGroupType(GroupViews.STREAMS_TYPE));
        }
        for (GroupDescription group : GroupViews.all(service).values()) {
            if (service.classic().contains(group.groupId())) {
                continue;
            }
            boolean simple = GroupViews.offsetsOnly(service, group);
            String type = simple ? GroupViews.SIMPLE_TYPE : GroupViews.TYPE;
            if (!states.isEmpty() && !states.contains(GroupViews.lower(group.state()))) {
                continue;
            }
            if (!types.isEmpty() && !types.contains(type)) {
                continue;
            }
            response.groups()
                    .add(new ListGroupsResponseData.ListedGroup()
                            .setGroupId(group.groupId())
                            .setProtocolType(simple ? GroupViews.SIMPLE_PROTOCOL_TYPE : GroupViews.PROTOCOL_TYPE)
                            .setGroupState(group.state())
                            .setGroupType(type));
        }
        return new ListGroupsResponse(response);
    }
}
