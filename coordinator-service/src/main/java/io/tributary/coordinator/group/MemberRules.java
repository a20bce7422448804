package io.tributary.coordinator.group;

import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;

/**
 * The rules KIP-848 consumer groups ({@link GroupCoordinator}) and KIP-1071 streams groups ({@code
 * group.streams.StreamsGroupCoordinator}) share, as pure functions over what each state machine
 * holds: a new group's first epoch, the answer to a member of a group unknown here, static
 * membership, fencing of a heartbeat's epoch, the member check of an OffsetFetch, and the length of
 * ids. Both protocols answer these cases alike in Kafka.
 */
public final class MemberRules {

    /** 2024-01-01T00:00:00Z: group epochs of new groups count seconds from here. */
    public static final long EPOCH_BASE_MS = 1_704_067_200_000L;

    /** The member epoch of a static member that left for now (it keeps its assignment). */
    public static final int STATIC_LEAVE_EPOCH = -2;

    private MemberRules() {}

    /**
     * A new group's first epoch: the seconds since 2024 (at least 1), so a new leader seldom hands
     * out the epochs an old one did (defence in depth: members are unknown to it until they join).
     */
    public static int initialGroupEpoch(long nowMs) {
        long seconds = (nowMs - EPOCH_BASE_MS) / 1000;
        return (int) Math.max(1, Math.min(seconds, Integer.MAX_VALUE / 2));
    }

    /**
     * What a request of a member (epoch above 0) to a group unknown here gets: GROUP_ID_NOT_FOUND, as
     * Kafka; UNKNOWN_MEMBER_ID (join again) within a session timeout of this coordinator forgetting
     * its groups ({@code forgottenAtMs}; {@code Long.MIN_VALUE}: never), when the member may be from
     * before a failover.
     */
    public static GroupException unknownGroup(
            String groupId, String memberId, long nowMs, long forgottenAtMs, long sessionTimeoutMs) {
        if (forgottenAtMs != Long.MIN_VALUE && nowMs - forgottenAtMs < sessionTimeoutMs) {
            return new GroupException(
                    Errors.UNKNOWN_MEMBER_ID,
                    "member " + memberId + " is not in group " + groupId
                            + ": this coordinator just took the groups over, join again");
        }
        return new GroupException(Errors.GROUP_ID_NOT_FOUND, "group " + groupId + " does not exist");
    }

    /** What a static member's heartbeat is, given who holds its instance id. */
    public sealed interface StaticMember {
        /** A new member joins with this instance id. */
        record Join() implements StaticMember {}

        /** The holder itself. */
        record Holder(String memberId) implements StaticMember {}

        /** A new member id takes over from the holder, which left for now. */
        record Replace(String previousMemberId) implements StaticMember {}
    }

    /**
     * The static membership rules (KIP-345 as KIP-848 and KIP-1071 keep them).
     *
     * @param holder the member id holding {@code instanceId} in the group, and its epoch
     * @throws GroupException UNRELEASED_INSTANCE_ID (joining while another member holds it and has
     *     not left for now), UNKNOWN_MEMBER_ID (a heartbeat with an instance id nobody holds),
     *     FENCED_INSTANCE_ID (a heartbeat of another member id than the holder's)
     */
    public static StaticMember staticMember(
            String groupId,
            String instanceId,
            String memberId,
            boolean joining,
            Optional<String> holder,
            int holderEpoch) {
        if (joining) {
            if (holder.isEmpty()) {
                return new StaticMember.Join();
            }
            if (holder.get().equals(memberId)) {
                return new StaticMember.Holder(memberId);
            }
            if (holderEpoch != STATIC_LEAVE_EPOCH) {
                throw new GroupException(
                        Errors.UNRELEASED_INSTANCE_ID,
                        "static member " + memberId + " with instance id " + instanceId + " joins group " + groupId
                                + " but member " + holder.get() + " still holds that instance id");
            }
            return new StaticMember.Replace(holder.get());
        }
        if (holder.isEmpty()) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID, "instance id " + instanceId + " is unknown in group " + groupId);
        }
        checkInstanceHolder(instanceId, memberId, holder);
        return new StaticMember.Holder(memberId);
    }

    /**
     * A request naming an instance id held by another member id is FENCED_INSTANCE_ID.
     *
     * @param holder the member id holding the instance id, if any
     */
    public static void checkInstanceHolder(String instanceId, String memberId, Optional<String> holder) {
        if (holder.isPresent() && !holder.get().equals(memberId)) {
            throw new GroupException(
                    Errors.FENCED_INSTANCE_ID,
                    "instance id " + instanceId + " belongs to member " + holder.get() + ", not " + memberId);
        }
    }

    /**
     * Fencing of a heartbeat's epoch: ahead of the member's is FENCED_MEMBER_EPOCH; behind it too,
     * except the previous epoch with owned partitions or tasks within the current assignment (the
     * answer that moved the member on was lost).
     *
     * @param ownedWithinAssignment whether the request lists what it owns and that is within the
     *     member's current assignment
     */
    public static void checkHeartbeatEpoch(
            String memberId, int received, int current, int previous, boolean ownedWithinAssignment) {
        boolean lostResponse = received < current && received == previous && ownedWithinAssignment;
        if (received != current && !lostResponse) {
            throw new GroupException(
                    Errors.FENCED_MEMBER_EPOCH,
                    "member " + memberId + " sent epoch " + received + " but is at epoch " + current
                            + ": it must give up what it owns and join again");
        }
    }

    /**
     * Whether an OffsetFetch may be answered: without a member id and with epoch -1 always (admin);
     * a member at its current epoch.
     *
     * @param memberEpoch the epoch of the member named, if it is in the group
     * @throws GroupException UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH
     */
    public static void checkFetch(
            String groupId, Optional<String> memberId, int fetchEpoch, Optional<Integer> memberEpoch) {
        if (memberId.filter(id -> !id.isEmpty()).isEmpty() && fetchEpoch < 0) {
            return;
        }
        if (memberEpoch.isEmpty()) {
            throw new GroupException(
                    Errors.UNKNOWN_MEMBER_ID, "member '" + memberId.orElse("") + "' is not in group " + groupId);
        }
        if (fetchEpoch != memberEpoch.get()) {
            throw new GroupException(
                    Errors.STALE_MEMBER_EPOCH,
                    "member " + memberId.orElse("") + " fetched at epoch " + fetchEpoch + " but is at epoch "
                            + memberEpoch.get());
        }
    }

    /** An id longer than {@link GroupConfig#maxIdLength} is INVALID_REQUEST. */
    public static void checkIdLength(GroupConfig config, String field, String value) {
        if (value.length() > config.maxIdLength()) {
            throw invalid(field + " is longer than " + config.maxIdLength()
                    + " characters (tributary.coordinator.groups.max-id-length)");
        }
    }

    /** INVALID_REQUEST with {@code message}. */
    public static GroupException invalid(String message) {
        return new GroupException(Errors.INVALID_REQUEST, message);
    }
}
