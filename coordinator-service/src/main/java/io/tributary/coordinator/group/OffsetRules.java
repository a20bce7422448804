package io.tributary.coordinator.group;

import io.tributary.coordinator.group.GroupCoordinator.Committer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/**
 * Who may commit and fetch a consumer group's offsets (KIP-848's rules, with KIP-1251's assignment
 * epochs, as Kafka 4.4's group coordinator), judged against the group as the coordinator holds it;
 * and the bound on committed-offset metadata.
 *
 * <p>Stateless; the groups it is given are used under the {@link GroupCoordinator}'s lock.
 */
final class OffsetRules {

    private OffsetRules() {}

    /**
     * See {@link GroupCoordinator#validateCommit}.
     *
     * @param group the group, or null when it is unknown here
     */
    static Committer validateCommit(
            ConsumerGroup group,
            String groupId,
            String memberId,
            int memberEpoch,
            Optional<String> instanceId,
            Set<TopicIdPartition> partitions) {
        boolean noMembers = group == null || group.members.isEmpty();
        if (memberEpoch < 0 && noMembers) {
            return Committer.ADMIN;
        }
        if (group == null) {
            throw new GroupException(Errors.GROUP_ID_NOT_FOUND, "group " + groupId + " does not exist");
        }
        ConsumerGroupMember member = group.members.get(memberId);
        if (member == null) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID,
                    "member '" + memberId + "' is not in group " + groupId
                            + (memberEpoch < 0 ? " (commits without a member need an empty group)" : ""));
        }
        if (instanceId.isPresent() && !instanceId.get().equals(member.instanceId)) {
            throw new GroupException(
                    Errors.FENCED_INSTANCE_ID, "member " + memberId + " does not hold instance id " + instanceId.get());
        }
        if (member.usesClassicProtocol()) {
            // Kafka: a classic member commits at its generation, which is its member epoch, exactly.
            if (memberEpoch != member.memberEpoch) {
                throw new GroupException(
                        Errors.ILLEGAL_GENERATION,
                        "member " + memberId + " committed at generation " + memberEpoch + ", not its member epoch "
                                + member.memberEpoch);
            }
            return Committer.CLASSIC_MEMBER;
        }
        if (memberEpoch == member.memberEpoch) {
            return Committer.MEMBER;
        }
        if (memberEpoch > member.memberEpoch) {
            throw new GroupException(
                    Errors.STALE_MEMBER_EPOCH,
                    "member " + memberId + " committed at epoch " + memberEpoch + ", newer than its epoch "
                            + member.memberEpoch);
        }
        for (TopicIdPartition partition : partitions) {
            Integer assignedAt = member.assignmentEpochs.get(partition);
            if (assignedAt == null || memberEpoch < assignedAt) {
                throw new GroupException(
                        Errors.STALE_MEMBER_EPOCH,
                        "member " + memberId + " committed at epoch " + memberEpoch + " but is at epoch "
                                + member.memberEpoch + ", and partition " + partition
                                + (assignedAt == null ? " is not its" : " is its since epoch " + assignedAt + " only"));
            }
        }
        return Committer.MEMBER;
    }

    /**
     * See {@link GroupCoordinator#validateFetch}.
     *
     * @param group the group, or null when it is unknown here
     */
    static void validateFetch(ConsumerGroup group, String groupId, Optional<String> memberId, int memberEpoch) {
        ConsumerGroupMember member = group == null ? null : group.members.get(memberId.orElse(""));
        MemberRules.checkFetch(
                groupId, memberId, memberEpoch, Optional.ofNullable(member).map(m -> m.memberEpoch));
    }

    /** Whether committed-offset metadata is longer than {@code maxBytes} in UTF-8. */
    static boolean metadataTooLarge(String metadata, int maxBytes) {
        return metadata != null
                && (metadata.length() > maxBytes || metadata.getBytes(StandardCharsets.UTF_8).length > maxBytes);
    }
}
