/**
 * Consumer lag on the coordinator leader: for each group and topic with committed offsets, the sum
 * over the topic's committed partitions of (log end offset − committed offset), floored at 0. Core:
 * plain Java, no Spring (an architecture test enforces it); the Micrometer gauges and the refresh
 * schedule are wired in {@code app}.
 *
 * <pre>
 *  every refresh interval, on the Raft leader only:
 *    MetadataImage.committedOffsets ──► partitions with committed offsets
 *    live brokers' endpoints ──► LogEndOffsets (kafka-clients Admin, listOffsets latest)
 *                                  ──► ConsumerLagMonitor: lag per (group, topic), at most maxSeries
 * </pre>
 *
 * <p>Invariants: a follower reports no lag (an empty snapshot); a group whose offsets were deleted
 * has no series after the next refresh; a lag is never negative; a partition whose log end offset
 * could not be learned adds nothing (its topic has no series if none of its partitions is known).
 */
package io.tributary.coordinator.lag;
