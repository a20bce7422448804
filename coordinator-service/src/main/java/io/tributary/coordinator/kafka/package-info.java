/**
 * The coordinator's Kafka handlers of the consumer-group protocol (plain Java, registered as {@link
 * io.tributary.common.protocol.RequestHandler} beans by the {@code app} wiring): ConsumerGroupHeartbeat,
 * ConsumerGroupDescribe, OffsetCommit, OffsetFetch, ListGroups, DescribeGroups, DeleteGroups,
 * OffsetDelete. Each turns kafka-clients' request data into calls on {@link
 * io.tributary.coordinator.group.GroupCoordinator} and {@link io.tributary.coordinator.group.OffsetStore},
 * and every refusal into the Kafka error code clients expect (never UNKNOWN_SERVER_ERROR for a
 * client's mistake).
 *
 * <p>Invariants: only the Raft leader serves groups; a follower answers NOT_COORDINATOR and drops
 * whatever membership it held ({@link io.tributary.coordinator.kafka.GroupService#requireLeader}).
 * Topic ids (ConsumerGroupHeartbeat, OffsetCommit/OffsetFetch v10) are resolved through the
 * coordinator's metadata image; committed offsets are keyed by topic name. {@link
 * io.tributary.coordinator.kafka.GroupService} routes each request to the state machine of its
 * group id's type; {@code MixedGroups} serves the classic protocol inside a consumer group and
 * converts groups between the protocols (Kafka 4.4's online migration).
 */
package io.tributary.coordinator.kafka;
