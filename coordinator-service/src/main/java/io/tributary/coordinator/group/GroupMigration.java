package io.tributary.coordinator.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer group coordinator's side of a group changing protocol with its members (Kafka 4.4's
 * online migration, see {@link GroupConversions}): taking a classic generation over as a consumer
 * group (upgrade), and handing over the consumer groups left with classic members only
 * (downgrade). Whether the policy allows either is the caller's ({@link ConsumerMigrationPolicy}).
 * Both queue the writes of the change: the converted group's records, or the deletion of the group
 * handed over.
 *
 * <p>Thread-safety: every method runs under the {@link GroupCoordinator}'s lock.
 */
public final class GroupMigration {

    private static final Logger log = LoggerFactory.getLogger(GroupMigration.class);

    private final GroupCoordinator coordinator;

    public GroupMigration(GroupCoordinator coordinator) {
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
    }

    /**
     * Takes a classic group's generation over as a consumer group (replacing one of that id: empty,
     * or left stored by an interrupted downgrade), its members keeping the classic protocol.
     *
     * @throws GroupException GROUP_ID_NOT_FOUND when it has more members than a consumer group may
     *     have, or cannot be converted ({@link GroupConversions#fromClassic})
     */
    public void upgrade(ClassicGeneration generation, long nowMs) {
        synchronized (coordinator) {
            String groupId = generation.groupId();
            int maxSize = coordinator.config().maxGroupSize();
            if (generation.members().size() > maxSize) {
                throw new GroupException(
                        Errors.GROUP_ID_NOT_FOUND,
                        "Cannot upgrade classic group " + groupId + " to consumer group because the group size"
                                + " exceeds the consumer group maximum size.");
            }
            ConsumerGroup group = GroupConversions.fromClassic(
                    generation, coordinator.topics, coordinator.config().defaultAssignor(), nowMs);
            ConsumerGroup previous = coordinator.group(groupId);
            if (previous != null) {
                if (!previous.members.isEmpty()) {
                    // Left stored by a downgrade whose second write a failover cut off: the classic
                    // group written first is the newer state.
                    log.warn(
                            "group {}: a consumer group of {} members was stored beside the classic group; replaced",
                            groupId,
                            previous.members.size());
                }
                coordinator.forget(previous);
            }
            coordinator.put(group);
            coordinator.store(group);
            log.info(
                    "group {}: converted the classic group (generation {}, {} members) to a consumer group",
                    groupId,
                    generation.generationId(),
                    generation.members().size());
        }
    }

    /**
     * Hands over every consumer group that lost a member and is left with members that all speak
     * the classic protocol, at most {@code maxClassicGroupSize} of them (Kafka's {@code
     * group.max.size}): each is forgotten here (its stored state deleted) and returned as the
     * classic generation the classic coordinator is to take over. Groups that do not qualify stay.
     *
     * @param maxClassicGroupSize the most members of a classic group; 0 hands nothing over (the
     *     policy does not downgrade)
     */
    public List<ClassicGeneration> takeDowngrades(int maxClassicGroupSize) {
        synchronized (coordinator) {
            List<ClassicGeneration> downgraded = new ArrayList<>();
            for (var candidate : coordinator.downgradeCandidates.entrySet()) {
                String groupId = candidate.getKey();
                ConsumerGroup group = coordinator.group(groupId);
                if (group == null
                        || group.members.isEmpty()
                        || group.members.size() > maxClassicGroupSize
                        || !group.members.values().stream().allMatch(ConsumerGroupMember::usesClassicProtocol)) {
                    continue;
                }
                downgraded.add(GroupConversions.toClassic(group, candidate.getValue(), coordinator.topics));
                coordinator.forget(group);
                log.info(
                        "group {}: converted the consumer group (epoch {}, {} classic members) to a classic group",
                        groupId,
                        group.groupEpoch,
                        group.members.size());
            }
            coordinator.downgradeCandidates.clear();
            return downgraded;
        }
    }

    /** Whether every member of the group speaks the classic protocol (tests, describe). */
    public boolean onlyClassicMembers(String groupId) {
        synchronized (coordinator) {
            ConsumerGroup group = coordinator.group(groupId);
            return group != null && group.members.values().stream().allMatch(ConsumerGroupMember::usesClassicProtocol);
        }
    }
}
