/**
 * Consume over HTTP: the long-poll fetch {@code GET /v1/topics/{topic}/partitions/{p}/records}
 * and the Server-Sent Event stream {@code GET /v1/topics/{topic}/events} ({@link
 * io.tributary.gateway.consume.EventStreamController}, which has its own consumer pool). Fetches borrow a consumer from a bounded {@link
 * io.tributary.gateway.consume.ConsumerPool} (assign and seek, never a group), so a burst of requests
 * never creates and throws away consumers; when all are busy a fetch waits briefly, then gets 429.
 * The position is in the URL: the gateway keeps nothing between requests.
 */
package io.tributary.gateway.consume;
