/**
 * The gateway's Spring edge: the application, its configuration records, the OpenAPI description,
 * and (as they land) the controllers that map HTTP and SSE to Kafka clients.
 */
package io.tributary.gateway.app;
