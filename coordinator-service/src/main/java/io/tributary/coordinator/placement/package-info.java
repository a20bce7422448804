/**
 * Replica placement: which brokers hold each new partition, and which of them is its preferred
 * leader. Core: plain Java, no Spring (an architecture test enforces it).
 *
 * <p>Invariants, for the same inputs always the same output:
 *
 * <ul>
 *   <li>the replicas of a partition are distinct registered brokers, live ones first: a fenced
 *       broker gets a replica only when the live ones are fewer than the replication factor (as
 *       in Kafka's KRaft placement), and never the preferred leader;
 *   <li>on live brokers only, they span {@code min(replicationFactor, rackCount)} racks (a broker without a rack counts
 *       as a rack of its own);
 *   <li>the preferred leaders (first replicas) of one placement differ by at most one per broker;
 *   <li>a replication factor above the number of registered brokers, or a placement with no live
 *       broker, is refused, never silently reduced.
 * </ul>
 *
 * <p>Placement runs before a command is appended (its result is in the command), never while a
 * command is applied: a change to this algorithm cannot make replaying an old log diverge.
 */
package io.tributary.coordinator.placement;
