/**
 * Consumer groups (KIP-848, server-side assignment): membership, assignment and the rules for
 * committed offsets. Core: plain Java, no Spring (an architecture test enforces it); time comes in
 * as a parameter, so tests and the simulation never sleep.
 *
 * <pre>
 *   ConsumerGroupHeartbeat ──► GroupCoordinator ──► Assignor (uniform | range) ──► target assignment
 *                                   │  reconcile each member towards its target:
 *                                   │  revoke first (UNREVOKED_PARTITIONS), then assign what is free
 *                                   │  (UNRELEASED_PARTITIONS until it is)
 *   tick(now) ─────────────────────►│  session timeouts, rebalance timeouts, topic changes
 *   OffsetCommit / OffsetFetch ────►│  validateCommit / validateFetch (member id + member epoch)
 *                                   ├──► ConsumerGroupStore (the groups' records, through Raft;
 *                                   │      answers wait for them; a new leader loads them)
 *                                   ▼
 *                               OffsetStore (committed offsets, replicated through Raft)
 *
 *   every offsets-retention-check-interval: OffsetRetention judges each group's offsets
 *   (from each commit, or from when an Empty classic group became empty) ──► deleted from the store
 * </pre>
 *
 * <p>Invariants: a partition is owned (assigned or pending revocation) by at most one member of a
 * group at any time, and moves to another member only after its owner's heartbeat stopped listing
 * it or its owner was removed; a member's epoch never goes down while it is a member; an offset
 * commit is accepted only from a member at its current epoch, or without a member into a group
 * that has none. Groups are served from memory on the coordinator leader; what Kafka persists of
 * them ({@link io.tributary.coordinator.group.ConsumerGroupRecord}s) is made durable through a {@link
 * io.tributary.coordinator.group.ConsumerGroupStore} before any answer that depends on it is sent,
 * and a new leader loads it, so members keep their epochs across a failover; committed offsets are
 * in the {@link io.tributary.coordinator.group.OffsetStore}.
 *
 * <p>Mixed groups (Kafka 4.4's online migration): a consumer group may have members that speak the
 * classic protocol ({@link io.tributary.coordinator.group.ClassicProtocolMembers}: JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup served by the server-side assignment; their {@link
 * io.tributary.coordinator.group.ClassicMemberMetadata} is stored with them), and a group changes
 * protocol with its members ({@link io.tributary.coordinator.group.GroupMigration}, {@code
 * GroupConversions}): a classic generation taken over as a consumer group, a consumer group left
 * with classic members only handed over as a {@link io.tributary.coordinator.group.ClassicGeneration},
 * as {@link io.tributary.coordinator.group.ConsumerMigrationPolicy} allows. {@link
 * io.tributary.coordinator.group.ClassicJoin} and {@link io.tributary.coordinator.group.ClassicProtocol}
 * are shared with the classic groups' state machine ({@code group.classic}).
 */
package io.tributary.coordinator.group;
