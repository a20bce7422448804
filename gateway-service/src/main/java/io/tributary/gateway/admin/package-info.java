/**
 * Topic administration over HTTP ({@code /v1/topics...}) through one shared AdminClient, and the
 * topic facts produce and fetch check first: {@link io.tributary.gateway.admin.TopicNames} (Kafka's
 * naming rules) and {@link io.tributary.gateway.admin.TopicCatalog} (which topics and partitions
 * exist, remembered briefly). Every call to the cluster is bounded by {@code
 * tributary.gateway.cluster-timeout}; running out of it is 503 with {@code Retry-After}.
 */
package io.tributary.gateway.admin;
