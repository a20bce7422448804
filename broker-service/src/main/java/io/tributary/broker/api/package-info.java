/**
 * The broker's Kafka API: one {@link io.tributary.common.protocol.RequestHandler} per API (Metadata,
 * Produce, Fetch, ListOffsets, admin requests forwarded to the coordinators...), in plain Java. The
 * Spring edge in {@code io.tributary.broker.app} makes them beans, which the Kafka listener registers.
 */
package io.tributary.broker.api;
