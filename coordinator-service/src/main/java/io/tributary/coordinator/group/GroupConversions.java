package io.tributary.coordinator.group;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.protocol.Errors;

/**
 * A group changing protocol with its members (Kafka 4.4's online migration; when it is allowed is
 * {@link ConsumerMigrationPolicy}'s and the caller's business):
 *
 * <ul>
 *   <li>{@link #fromClassic}, the upgrade (Kafka's {@code ConsumerGroup.fromClassicGroup}): the
 *       classic generation becomes the group epoch, the target's epoch and every member's epoch;
 *       each member is Stable, owns what its classic assignment gave it (since that epoch), has it
 *       as its target, subscribes to its subscription's topics and keeps speaking the classic
 *       protocol (session timeout, protocols). Refused with GROUP_ID_NOT_FOUND, as Kafka, when a
 *       subscription or assignment is not the {@code consumer} protocol's, or an assignment carries
 *       user data (a custom assignor's, which the server-side assignment would lose).
 *   <li>{@link #toClassic}, the downgrade (Kafka's {@code ClassicGroup.fromConsumerGroup}): the
 *       group epoch (before the removal that triggered it) becomes the generation, each classic member keeps its protocols and session
 *       timeout and gets its target assignment as {@code consumer} protocol bytes.
 * </ul>
 *
 * <p>Stateless; used under the {@link GroupCoordinator}'s lock.
 */
final class GroupConversions {

    private GroupConversions() {}

    /**
     * The consumer group a classic generation becomes.
     *
     * @throws GroupException GROUP_ID_NOT_FOUND when it cannot be converted (see the class comment)
     */
    static ConsumerGroup fromClassic(ClassicGeneration generation, TopicView topics, String assignor, long nowMs) {
        String groupId = generation.groupId();
        int epoch = generation.generationId();
        ConsumerGroup group = new ConsumerGroup(groupId, epoch, assignor);
        for (ClassicGeneration.Member classic : generation.members()) {
            SortedSet<TopicIdPartition> assigned;
            ConsumerProtocolBytes.Subscription subscription;
            try {
                assigned = ConsumerProtocolBytes.assignment(classic.assignment(), topics);
                subscription =
                        ConsumerProtocolBytes.subscription(classic.subscription(generation.protocolName()), topics);
            } catch (UnsupportedOperationException e) {
                throw new GroupException(
                        Errors.GROUP_ID_NOT_FOUND,
                        "Cannot upgrade classic group " + groupId + " to consumer group because an unsupported"
                                + " custom assignor is in use. Please refer to the documentation or switch to a"
                                + " default assignor before re-attempting the upgrade.");
            } catch (IllegalArgumentException | GroupException e) {
                throw new GroupException(
                        Errors.GROUP_ID_NOT_FOUND,
                        "Cannot upgrade classic group " + groupId
                                + " to consumer group because the embedded consumer protocol is malformed.");
            }
            ConsumerGroupMember member = new ConsumerGroupMember(classic.memberId());
            member.memberEpoch = epoch;
            member.previousMemberEpoch = epoch;
            member.instanceId = classic.instanceId().orElse(null);
            member.rackId = subscription.rackId().orElse(null);
            member.rebalanceTimeoutMs = classic.rebalanceTimeoutMs();
            member.clientId = classic.clientId();
            member.clientHost = classic.clientHost();
            member.subscribedTopicNames = List.copyOf(new TreeSet<>(subscription.topics()));
            member.classic = classic.classic();
            member.sessionDeadlineMs = nowMs + classic.classic().sessionTimeoutMs();
            group.add(member);
            if (member.instanceId != null) {
                group.staticMembers.put(member.instanceId, member.memberId);
            }
            // A partition two assignments claim (not one generation's) goes to the first only.
            assigned.removeIf(partition -> group.owners.ownerOf(partition) != null);
            group.owners.set(member, assigned, Collections.emptySortedSet(), epoch);
            group.target.put(member.memberId, new TreeSet<>(assigned));
        }
        group.targetChanged = true;
        return group;
    }

    /**
     * The classic generation a consumer group's members become (every one of them speaks the
     * classic protocol: checked by the caller).
     *
     * @param generation the generation: the group epoch before the removal that left only classic
     *     members (Kafka converts without the epoch bump of that removal)
     */
    static ClassicGeneration toClassic(ConsumerGroup group, int generation, TopicView topics) {
        List<ClassicGeneration.Member> members = new ArrayList<>();
        for (ConsumerGroupMember member : group.members.values()) {
            if (member.classic == null) {
                throw new IllegalStateException("member " + member.memberId + " does not speak the classic protocol");
            }
            byte[] subscription = member.classic.protocols().getFirst().metadata();
            SortedSet<TopicIdPartition> target = group.target.getOrDefault(member.memberId, new TreeSet<>());
            members.add(new ClassicGeneration.Member(
                    member.memberId,
                    Optional.ofNullable(member.instanceId),
                    member.clientId,
                    member.clientHost,
                    member.rebalanceTimeoutMs,
                    member.classic,
                    ConsumerProtocolBytes.assignment(target, subscription, topics)));
        }
        return new ClassicGeneration(
                group.groupId, ConsumerProtocol.PROTOCOL_TYPE, generation, Optional.empty(), members);
    }
}
