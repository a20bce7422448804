/**
 * Streams groups (KIP-1071: Kafka Streams with {@code group.protocol=streams}), beside the KIP-848
 * consumer groups of the parent package and the classic groups of {@code group.classic}: the
 * coordinator holds each application's topology, resolves it against the topics (task counts,
 * internal topics to create, the status codes a member is told), computes a sticky target
 * assignment of tasks ({@link io.tributary.coordinator.group.streams.StickyTaskAssignor}) and
 * reconciles each member towards it, revoking before reassigning
 * ({@link io.tributary.coordinator.group.streams.StreamsGroupCoordinator}).
 *
 * <pre>
 *  StreamsGroupHeartbeat ─▶ StreamsGroupCoordinator (one lock, in memory)
 *                              │ topology ─▶ TopologyResolver(TopicView) ─▶ task counts, statuses,
 *                              │                                          internal topics to create
 *                              │ group epoch &gt; assignment epoch ─▶ StickyTaskAssignor ─▶ target
 *                              └ member ─▶ reconcile (revoke first, then assign what is released)
 * </pre>
 *
 * <p>Invariants: an active task has at most one owner (assigned or pending revocation) at any
 * time; a member owns no task of a subtopology it was not given by the coordinator; a standby task
 * never shares a process with the same task's active owner in the target assignment.
 *
 * <p>Plain Java: no Spring, no I/O under the state machine's lock; time is a parameter. Membership
 * is not replicated: after a coordinator failover members join the new leader again (epoch 0, with
 * their topology), as KIP-848 consumer groups do.
 */
package io.tributary.coordinator.group.streams;
