package io.tributary.coordinator.group;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A snapshot of one group, for ConsumerGroupDescribe, DescribeGroups and ListGroups.
 *
 * @param groupId the group
 * @param state {@code Empty}, {@code Assigning}, {@code Reconciling} or {@code Stable} (Kafka's
 *     names of consumer-group states)
 * @param groupEpoch the group epoch
 * @param assignmentEpoch the epoch of the target assignment
 * @param assignor the server assignor in use
 * @param members the members in member-id order
 */
public record GroupDescription(
        String groupId, String state, int groupEpoch, int assignmentEpoch, String assignor, List<Member> members) {

    public static final String EMPTY = "Empty";
    public static final String ASSIGNING = "Assigning";
    public static final String RECONCILING = "Reconciling";
    public static final String STABLE = "Stable";

    public GroupDescription {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(state, "state");
        members = List.copyOf(members);
    }

    /**
     * One member.
     *
     * @param memberId the member id
     * @param instanceId its static instance id
     * @param rackId its rack
     * @param memberEpoch its epoch
     * @param state where it is in reconciliation
     * @param clientId the client id of its last heartbeat
     * @param clientHost its address
     * @param subscribedTopicNames what it subscribes to by name
     * @param subscribedTopicRegex what it subscribes to by regular expression
     * @param assigned the partitions it may use now
     * @param pendingRevocation the partitions it has been asked to revoke
     * @param target its target assignment
     * @param classic what it sent as a member speaking the classic protocol, empty for a KIP-848
     *     member (ConsumerGroupDescribe's member type)
     */
    public record Member(
            String memberId,
            Optional<String> instanceId,
            Optional<String> rackId,
            int memberEpoch,
            MemberState state,
            String clientId,
            String clientHost,
            List<String> subscribedTopicNames,
            Optional<String> subscribedTopicRegex,
            SortedSet<TopicIdPartition> assigned,
            SortedSet<TopicIdPartition> pendingRevocation,
            SortedSet<TopicIdPartition> target,
            Optional<ClassicMemberMetadata> classic) {

        public Member {
            Objects.requireNonNull(classic, "classic");
            subscribedTopicNames = List.copyOf(subscribedTopicNames);
            assigned = new TreeSet<>(assigned);
            pendingRevocation = new TreeSet<>(pendingRevocation);
            target = new TreeSet<>(target);
        }
    }
}
