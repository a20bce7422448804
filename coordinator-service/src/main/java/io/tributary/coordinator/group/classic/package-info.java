/**
 * Classic consumer groups (Kafka's JoinGroup / SyncGroup / Heartbeat / LeaveGroup protocol), beside
 * the KIP-848 consumer groups of the parent package: generations, the join barrier, leader-side
 * assignment handed out as opaque bytes, static membership, and what a generation leaves behind
 * across a coordinator failover ({@link io.tributary.coordinator.group.classic.ClassicGroupRecord},
 * kept by a {@link io.tributary.coordinator.group.classic.ClassicGroupStore}).
 *
 * <h2>The classes</h2>
 *
 * <ul>
 *   <li>{@link io.tributary.coordinator.group.classic.ClassicGroupCoordinator}: the public,
 *       {@code synchronized} facade: the groups by id, the queue of writes to make durable, and the
 *       API (join, sync, heartbeat, leave, tick, drainStores / stored, clear / load, validateCommit,
 *       describe, delete, ...). The classes below are package-private and used only under its lock.
 *   <li>{@code ClassicJoins}: a JoinGroup: validation, a new member (KIP-394's MEMBER_ID_REQUIRED
 *       and pending member ids), an existing member joining again, a static member back under a new
 *       id (fencing the old one), the answers that do not wait.
 *   <li>{@code ClassicRebalance}: preparing a rebalance, the join barrier and its completion (the
 *       joined-leader election, the protocol, the JoinGroup answers), failing SyncGroups, removing a
 *       member, one group's timers, a stored or failed assignment.
 *   <li>{@code ClassicGroup} (with {@code ClassicMember}): one group's state, its JoinGroup and
 *       SyncGroup answers, its DescribeGroups view, its subscribed topics (OffsetDelete), the
 *       OffsetCommit rules and its invariants.
 * </ul>
 *
 * <h2>The flow</h2>
 *
 * <pre>
 *  JoinGroup (ClassicJoins), LeaveGroup, a session or deadline expiring (tick: ClassicRebalance)
 *     |  a change to the group: ClassicRebalance.prepare
 *     v
 *  PreparingRebalance: the JoinGroups wait at the join barrier
 *     |  every member joined again, or the rebalance timeout passed (tick)
 *     v
 *  CompletingRebalance: generation + 1, a leader that joined, the protocol, the JoinGroups answered
 *     |  the leader's SyncGroup (ClassicGroupCoordinator.sync): a Store is queued
 *     |  drainStores, the caller makes it durable, stored: ClassicRebalance.assignmentStored
 *     v
 *  Stable: the SyncGroups answered (a failed store: they fail and the group rebalances)
 * </pre>
 *
 * <p>Plain Java: no Spring, no I/O under the state machine's lock; time is a parameter.
 */
package io.tributary.coordinator.group.classic;
