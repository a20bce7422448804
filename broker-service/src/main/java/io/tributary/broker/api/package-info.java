/**
 * The broker's Kafka API: one {@link io.tributary.common.protocol.RequestHandler} per API, in plain
 * Java. The Spring edge in {@code io.tributary.broker.app} makes them beans, which the Kafka
 * listener registers (ApiVersions advertises exactly their ranges).
 *
 * <p>The data path: {@link io.tributary.broker.api.ProduceHandler}, {@link
 * io.tributary.broker.api.FetchHandler}, {@link io.tributary.broker.api.ListOffsetsHandler}, {@link
 * io.tributary.broker.api.OffsetForLeaderEpochHandler}, {@link
 * io.tributary.broker.api.DeleteRecordsHandler}. Each resolves partitions through one set of checks
 * (topic, local replica, the client's leader epoch, leadership, an active broker) and maps storage
 * failures to Kafka error codes in one place ({@code DataPathErrors}); a client's mistake is never
 * {@code UNKNOWN_SERVER_ERROR}.
 *
 * <p>Metadata and admin APIs (this package's {@code *Handler} classes other than the data path):
 *
 * <pre>
 *  client ── Metadata, DescribeCluster, DescribeConfigs ──► handler ──► MetadataView.image()   (reads: this
 *                                                                                               broker's image)
 *  client ── CreateTopics, DeleteTopics, CreatePartitions,
 *            IncrementalAlterConfigs, AlterConfigs ───────► handler ──► local checks (names, counts,
 *                                                                       TopicConfigCatalog)
 *                                                                   ──► ControlPlane write ──► version v
 *                                                                   ──► MetadataView.awaitVersion(v)
 *                                                                       (so the client's next read sees it)
 *  client ── InitProducerId ──► ProducerIdAllocator ──► ControlPlane.allocateProducerIds (blocks, prefetched)
 *  client ── FindCoordinator (GROUP) ──► this broker, once GroupCoordinatorLocator knows the leader
 *  client ── ConsumerGroupHeartbeat, OffsetCommit, OffsetFetch, ConsumerGroupDescribe,
 *            DescribeGroups, DeleteGroups, OffsetDelete,
 *            JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
 *            StreamsGroupHeartbeat, StreamsGroupDescribe ──► GroupForwardingHandler
 *                                                       ──► CoordinatorGroupsClient.forward ──► coordinator leader
 *                                                           (JoinGroup, SyncGroup: long polls, up to the
 *                                                            rebalance wait plus the read timeout)
 *  client ── ListGroups ──► ListGroupsHandler (the lowest alive broker forwards, the others answer empty)
 * </pre>
 *
 * <p>Authorization: every handler makes the per-item ACL checks Kafka's {@code KafkaApis} makes
 * (on each topic, group, key or config resource a request names) through one {@link
 * io.tributary.common.protocol.AccessControl}, with Kafka's errors in Kafka's places; the forwarded
 * group requests' checks are {@link io.tributary.broker.api.GroupAccess}'s ({@code OffsetAccess},
 * {@code GroupDescribeAccess}), the config resources' {@code ConfigAccess}. Without an authorizer
 * every check allows.
 *
 * <p>Invariants: a client's mistake is answered with Kafka's own error code for it, never
 * UNKNOWN_SERVER_ERROR; a control-plane failure is mapped by {@link
 * io.tributary.broker.api.ControlPlaneErrors} (retriable ones to NOT_CONTROLLER, which the
 * AdminClient retries); every handler is stateless apart from the thread-safe allocator, and may be
 * called from many connections' virtual threads at once.
 */
package io.tributary.broker.api;
