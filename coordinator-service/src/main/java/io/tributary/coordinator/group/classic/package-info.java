/**
 * Classic consumer groups (Kafka's JoinGroup / SyncGroup / Heartbeat / LeaveGroup protocol), beside
 * the KIP-848 consumer groups of the parent package: generations, the join barrier, leader-side
 * assignment handed out as opaque bytes, static membership, and what a generation leaves behind
 * across a coordinator failover ({@link io.tributary.coordinator.group.classic.ClassicGroupRecord},
 * kept by a {@link io.tributary.coordinator.group.classic.ClassicGroupStore}).
 *
 * <p>Plain Java: no Spring, no I/O under the state machine's lock; time is a parameter.
 */
package io.tributary.coordinator.group.classic;
