/**
 * Consumer groups over HTTP: {@code GET /v1/groups/{group}/events} (an SSE stream that is one member
 * of a Kafka consumer group), {@code POST /v1/groups/{group}/commits}, and {@code GET /v1/groups},
 * {@code GET /v1/groups/{group}} (AdminClient).
 *
 * <pre>
 *  client  &lt;-- SSE --  writer thread  &lt;-- StreamBuffer --  GroupStream (reader thread)
 *                        (flushes; reports                  owns one KafkaConsumer
 *                         written positions)                (group.protocol=consumer):
 *                                                            poll, rebalance listener,
 *                                                            auto and manual commits
 * </pre>
 *
 * <p>The group lives in the group coordinator, not here: the open stream is the membership (its
 * consumer joins when the stream opens and leaves when it ends), the coordinator assigns partitions
 * across every stream of the group on every gateway replica, and positions are committed offsets
 * or the client's cursor. Invariants: only the reader thread touches the consumer (manual commits
 * are handed to it); {@code commit=auto} commits only positions written and flushed to the client;
 * a revoked partition's written position is committed, and its {@code revoked} event written,
 * before the revocation completes, so the next owner starts exactly after what this stream
 * delivered.
 */
package io.tributary.gateway.groups;
