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
 */
package io.tributary.broker.api;
