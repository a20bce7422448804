package io.tributary.coordinator.group;

/**
 * Where a member is in reconciling its assignment towards the group's target assignment (KIP-848).
 */
public enum MemberState {
    /** The member owns its whole target assignment at the target assignment epoch. */
    STABLE,
    /**
     * The member must first revoke partitions (its {@code partitionsPendingRevocation}); it stays at
     * its epoch until a heartbeat no longer lists them, and is removed if that does not happen
     * within its rebalance timeout.
     */
    UNREVOKED_PARTITIONS,
    /**
     * The member is at the target epoch but some of its target partitions are still owned by other
     * members that have not revoked them yet; they are assigned as they are released.
     */
    UNRELEASED_PARTITIONS
}
