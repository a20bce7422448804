package io.tributary.coordinator.group;

import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What a successful heartbeat answers.
 *
 * @param memberId the member id
 * @param memberEpoch the member's epoch now (-1 or -2 after a leave)
 * @param heartbeatIntervalMs when to heartbeat next
 * @param assignment the partitions the member may use now, present when it changed or the request
 *     was full; partitions it must revoke are exactly those it owns that are not in here
 */
public record HeartbeatResponse(
        String memberId, int memberEpoch, int heartbeatIntervalMs, Optional<SortedSet<TopicIdPartition>> assignment) {

    public HeartbeatResponse {
        Objects.requireNonNull(memberId, "memberId");
        assignment = assignment.map(TreeSet::new);
    }
}
