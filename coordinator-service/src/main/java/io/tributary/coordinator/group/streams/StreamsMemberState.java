package io.tributary.coordinator.group.streams;

/** Where a streams group member is in reconciling its tasks towards its target (KIP-1071). */
public enum StreamsMemberState {
    /** The member owns its whole target at the target assignment epoch. */
    STABLE,
    /**
     * The member must first revoke tasks; it stays at its epoch until a heartbeat no longer lists
     * them, and is removed if that does not happen within its rebalance timeout.
     */
    UNREVOKED_TASKS,
    /** The member is at the target epoch but waits for tasks other members still hold. */
    UNRELEASED_TASKS
}
