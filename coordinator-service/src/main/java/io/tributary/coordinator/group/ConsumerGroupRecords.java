package io.tributary.coordinator.group;

import com.google.re2j.Pattern;
import io.tributary.coordinator.group.ConsumerGroupRecord.GroupMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberAssignment;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberRemoved;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMember;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Between a {@link ConsumerGroup} in memory and its {@link ConsumerGroupRecord}s: what changed since
 * the last store ({@link #changes}), and a group rebuilt from what is stored ({@link #load}).
 *
 * <p>{@link #changes} writes, in this order: the group record (epoch, assignor, topics hash) if it
 * changed, removed members, the metadata of members that changed, target members that changed, the
 * target's epoch if it changed, the current assignments that changed. The group epoch goes first so
 * that a prefix stored without the rest (a writer that died between two commands) is a group whose
 * target is computed again (its epoch is ahead of the target's) from the members stored; the
 * assignments go last so that a member stored at a new epoch has its target stored already.
 *
 * <p>Stateless; the groups it is given are used under the {@link GroupCoordinator}'s lock.
 */
final class ConsumerGroupRecords {

    private static final Logger log = LoggerFactory.getLogger(ConsumerGroupRecords.class);

    private ConsumerGroupRecords() {}

    /** What a member sent, as stored. */
    static MemberMetadata metadataOf(ConsumerGroupMember member) {
        return new MemberMetadata(
                member.memberId,
                Optional.ofNullable(member.instanceId),
                Optional.ofNullable(member.rackId),
                member.clientId,
                member.clientHost,
                member.rebalanceTimeoutMs,
                member.subscribedTopicNames,
                Optional.ofNullable(member.subscribedTopicRegex),
                Optional.ofNullable(member.serverAssignor),
                Optional.ofNullable(member.classic));
    }

    /** Where a member is in reconciling, as stored. */
    static MemberAssignment assignmentOf(ConsumerGroupMember member) {
        return new MemberAssignment(
                member.memberId,
                member.memberEpoch,
                member.previousMemberEpoch,
                member.state,
                withEpochs(member, member.assigned),
                withEpochs(member, member.pendingRevocation));
    }

    private static SortedMap<TopicIdPartition, Integer> withEpochs(
            ConsumerGroupMember member, Set<TopicIdPartition> partitions) {
        SortedMap<TopicIdPartition, Integer> owned = new TreeMap<>();
        for (TopicIdPartition partition : partitions) {
            owned.put(partition, member.assignmentEpochs.getOrDefault(partition, 0));
        }
        return owned;
    }

    /**
     * The records of what changed in a group since the last call (or its load), in the order in the
     * class comment; afterwards the group counts them as stored.
     */
    static List<ConsumerGroupRecord> changes(ConsumerGroup group) {
        List<ConsumerGroupRecord> records = new ArrayList<>();
        GroupMetadata metadata = new GroupMetadata(group.groupEpoch, group.assignor, group.metadataHash);
        if (!metadata.equals(group.storedGroup)) {
            records.add(metadata);
            group.storedGroup = metadata;
        }
        for (String memberId : group.removed) {
            boolean stored = group.storedMetadata.remove(memberId) != null;
            stored |= group.storedAssignments.remove(memberId) != null;
            stored |= group.storedTarget.remove(memberId) != null;
            if (stored) {
                records.add(new MemberRemoved(memberId));
            }
        }
        group.removed.clear();
        List<ConsumerGroupMember> touched = new ArrayList<>();
        for (String memberId : group.touched) {
            ConsumerGroupMember member = group.members.get(memberId);
            if (member != null) {
                touched.add(member);
                MemberMetadata memberMetadata = metadataOf(member);
                if (!memberMetadata.equals(group.storedMetadata.put(memberId, memberMetadata))) {
                    records.add(memberMetadata);
                }
            }
        }
        group.touched.clear();
        if (group.targetChanged) {
            for (Map.Entry<String, SortedSet<TopicIdPartition>> e : group.target.entrySet()) {
                SortedSet<TopicIdPartition> partitions = new TreeSet<>(e.getValue());
                if (!partitions.equals(group.storedTarget.put(e.getKey(), partitions))) {
                    records.add(new TargetMember(e.getKey(), partitions));
                }
            }
            group.targetChanged = false;
        }
        if (group.assignmentEpoch != group.storedAssignmentEpoch) {
            records.add(new TargetMetadata(group.assignmentEpoch));
            group.storedAssignmentEpoch = group.assignmentEpoch;
        }
        for (ConsumerGroupMember member : touched) {
            MemberAssignment assignment = assignmentOf(member);
            if (!assignment.equals(group.storedAssignments.put(member.memberId, assignment))) {
                records.add(assignment);
            }
        }
        return records;
    }

    /**
     * A group as stored, taken over by a new leader: members keep their epochs, states and what
     * they own (with their assignment epochs); each member's session starts now, and a member
     * revoking gets its whole rebalance timeout from now. A partition stored as owned by two
     * members (which the coordinator never writes) stays with the first in member id order.
     *
     * @param compile compiles a stored subscription regex (null when it no longer compiles)
     * @param assigner resolves the subscribed topics now; if they differ from those the group epoch
     *     was computed from (the stored hash), the group epoch goes up at once
     */
    static ConsumerGroup load(
            StoredConsumerGroup stored,
            long nowMs,
            long sessionTimeoutMs,
            String defaultAssignor,
            Function<String, Pattern> compile,
            TargetAssigner assigner) {
        String assignor = Assignors.byName(stored.assignor()).isPresent() ? stored.assignor() : defaultAssignor;
        ConsumerGroup group = new ConsumerGroup(stored.groupId(), stored.groupEpoch(), assignor);
        group.assignmentEpoch = stored.assignmentEpoch();
        Set<TopicIdPartition> owned = new HashSet<>();
        for (StoredConsumerGroup.Member storedMember : stored.members().values()) {
            MemberMetadata m = storedMember.metadata();
            MemberAssignment a = storedMember.assignment();
            ConsumerGroupMember member = new ConsumerGroupMember(m.id());
            member.instanceId = m.instanceId().orElse(null);
            member.rackId = m.rackId().orElse(null);
            member.clientId = m.clientId();
            member.clientHost = m.clientHost();
            member.rebalanceTimeoutMs = m.rebalanceTimeoutMs();
            member.subscribedTopicNames = m.subscribedTopicNames();
            member.subscribedTopicRegex = m.subscribedTopicRegex().orElse(null);
            member.regex = member.subscribedTopicRegex == null ? null : compile.apply(member.subscribedTopicRegex);
            member.serverAssignor = m.serverAssignor().orElse(null);
            member.classic = m.classic().orElse(null);
            member.memberEpoch = a.memberEpoch();
            member.previousMemberEpoch = a.previousMemberEpoch();
            member.state = a.state();
            group.members.put(member.memberId, member);
            if (member.instanceId != null) {
                group.staticMembers.put(member.instanceId, member.memberId);
            }
            SortedSet<TopicIdPartition> assigned = unowned(group, member, a.assigned(), owned);
            SortedSet<TopicIdPartition> pending = unowned(group, member, a.pendingRevocation(), owned);
            group.owners.set(member, assigned, pending, 0);
            a.assigned().forEach((p, epoch) -> member.assignmentEpochs.computeIfPresent(p, (k, v) -> epoch));
            a.pendingRevocation().forEach((p, epoch) -> member.assignmentEpochs.computeIfPresent(p, (k, v) -> epoch));
            member.sessionDeadlineMs =
                    nowMs + (member.classic == null ? sessionTimeoutMs : member.classic.sessionTimeoutMs());
            member.rebalanceDeadlineMs = member.state == MemberState.UNREVOKED_PARTITIONS
                    ? nowMs + member.rebalanceTimeoutMs
                    : Long.MAX_VALUE;
            group.storedMetadata.put(member.memberId, m);
            group.storedAssignments.put(member.memberId, assignmentOf(member));
        }
        stored.target().forEach((memberId, partitions) -> {
            group.target.put(memberId, new TreeSet<>(partitions));
            group.storedTarget.put(memberId, new TreeSet<>(partitions));
        });
        group.storedAssignmentEpoch = stored.assignmentEpoch();
        group.storedGroup = new GroupMetadata(stored.groupEpoch(), stored.assignor(), stored.metadataHash());
        SortedMap<String, TopicView.TopicInfo> topicsNow = assigner.resolve(group);
        group.subscribedTopics(topicsNow);
        if (group.metadataHash != stored.metadataHash()) {
            group.bump("subscribed topics changed while no coordinator led");
        }
        return group;
    }

    /** The partitions no member loaded before owns; one owned twice is logged and left to the first. */
    private static SortedSet<TopicIdPartition> unowned(
            ConsumerGroup group,
            ConsumerGroupMember member,
            SortedMap<TopicIdPartition, Integer> stored,
            Set<TopicIdPartition> owned) {
        SortedSet<TopicIdPartition> result = new TreeSet<>();
        for (TopicIdPartition partition : stored.keySet()) {
            if (owned.add(partition)) {
                result.add(partition);
            } else {
                log.warn(
                        "group {}: partition {} stored as owned by {} too; left to {}",
                        group.groupId,
                        partition,
                        member.memberId,
                        group.owners.ownerOf(partition));
            }
        }
        return result;
    }
}
