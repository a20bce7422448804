package io.tributary.systemtests.kafka;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;

/**
 * The group-level raw requests of the classic-group scenarios (DescribeGroups, ListGroups,
 * DeleteGroups, OffsetCommit, OffsetFetch) at chosen versions, each answer as one line of text
 * normalised by {@link ClassicGroupMember.Names}. They go on a connection of their own: a member's
 * connection may have a JoinGroup waiting.
 */
final class ClassicGroupRequests {

    private ClassicGroupRequests() {}

    /** A topic a commit names: by name before OffsetCommit v10, by id from v10. */
    record Topic(String name, Uuid id) {}

    /** DescribeGroups of one group: error, state, protocol type and data, each member. */
    static String describe(RawKafka raw, ClassicGroupMember.Names names, short version, String group) throws Exception {
        var g = describeData(raw, version, group);
        List<String> members = new ArrayList<>();
        for (var m : g.members()) {
            members.add(names.member(m.memberId()) + (m.groupInstanceId() == null ? "" : "/" + m.groupInstanceId())
                    + " client=" + m.clientId() + " host=" + m.clientHost() + " metadata="
                    + names.bytes(m.memberMetadata()) + " assignment=" + names.bytes(m.memberAssignment()));
        }
        members.sort(null);
        return Errors.forCode(g.errorCode()) + " state=" + g.groupState() + " protocolType='" + g.protocolType()
                + "' protocol='" + g.protocolData() + "' members=" + members;
    }

    /** DescribeGroups of one group: the raw answer. */
    static DescribeGroupsResponseData.DescribedGroup describeData(RawKafka raw, short version, String group)
            throws Exception {
        var data = new DescribeGroupsRequestData().setGroups(List.of(group));
        return raw.connection()
                .roundTrip(new DescribeGroupsRequest.Builder(data).build(version), DescribeGroupsResponse.class)
                .data()
                .groups()
                .getFirst();
    }

    /** ListGroups, filtered (v4+ states, v5+ types), and what it says of {@code group}, or "absent". */
    static String list(RawKafka raw, short version, String group, List<String> states, List<String> types)
            throws Exception {
        var data = new ListGroupsRequestData();
        if (version >= 4) {
            data.setStatesFilter(states);
        }
        if (version >= 5) {
            data.setTypesFilter(types);
        }
        var response = raw.connection()
                .roundTrip(new ListGroupsRequest.Builder(data).build(version), ListGroupsResponse.class)
                .data();
        String seen = "absent";
        for (var g : response.groups()) {
            if (g.groupId().equals(group)) {
                seen = "protocolType='" + g.protocolType() + "'" + (version >= 4 ? " state=" + g.groupState() : "")
                        + (version >= 5 ? " type=" + g.groupType() : "");
            }
        }
        return Errors.forCode(response.errorCode()) + " " + seen;
    }

    /** DeleteGroups of one group: its error. */
    static Errors delete(RawKafka raw, short version, String group) throws Exception {
        var data = new DeleteGroupsRequestData().setGroupsNames(List.of(group));
        var response = raw.connection()
                .roundTrip(new DeleteGroupsRequest.Builder(data).build(version), DeleteGroupsResponse.class)
                .data();
        return Errors.forCode(response.results().iterator().next().errorCode());
    }

    /** Commits offset {@code offset} of partition 0 as the given member and generation: the partition's error. */
    static Errors commit(
            RawKafka raw,
            short version,
            String group,
            int generation,
            String memberId,
            String instanceId,
            Topic topic,
            long offset)
            throws Exception {
        var data = new OffsetCommitRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setGenerationIdOrMemberEpoch(generation)
                .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName(topic.name())
                        .setTopicId(topic.id())
                        .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0)
                                .setCommittedOffset(offset)))));
        if (version >= 7) {
            data.setGroupInstanceId(instanceId);
        }
        var response = raw.connection()
                .roundTrip(
                        OffsetCommitRequest.Builder.forTopicIdsOrNames(data).build(version), OffsetCommitResponse.class)
                .data();
        var partitions =
                response.topics().stream().flatMap(t -> t.partitions().stream()).toList();
        if (partitions.size() != 1) {
            throw new AssertionError("one partition answer expected: " + response);
        }
        return Errors.forCode(partitions.getFirst().errorCode());
    }

    /**
     * OffsetFetch (v8+) of partition 0, with the member id and epoch of v9+: the group's error and
     * the partition's offset and error.
     */
    static String fetch(RawKafka raw, short version, String group, String memberId, int epoch, Topic topic)
            throws Exception {
        var request = new OffsetFetchRequestData.OffsetFetchRequestGroup()
                .setGroupId(group)
                .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                        .setName(topic.name())
                        .setTopicId(topic.id())
                        .setPartitionIndexes(List.of(0))));
        if (version >= 9) {
            request.setMemberId(memberId).setMemberEpoch(epoch);
        }
        var data = new OffsetFetchRequestData().setGroups(List.of(request));
        var group0 = raw.connection()
                .roundTrip(
                        OffsetFetchRequest.Builder.forTopicIdsOrNames(data, false)
                                .build(version),
                        OffsetFetchResponse.class)
                .data()
                .groups()
                .getFirst();
        List<String> partitions = new ArrayList<>();
        for (var t : group0.topics()) {
            for (var p : t.partitions()) {
                partitions.add("offset " + p.committedOffset() + " " + Errors.forCode(p.errorCode()));
            }
        }
        return Errors.forCode(group0.errorCode()) + " " + partitions;
    }
}
