/**
 * Topic configuration rules shared by brokers and coordinators: which topic config keys Tributary
 * accepts, their Kafka types and ranges, and how values are normalized. The coordinator validates
 * with them before a config reaches the Raft log; brokers validate with them before forwarding a
 * request (so that {@code validate_only} answers as the real write would) and describe topics
 * with them. {@link io.tributary.common.topic.UnsupportedTopicConfigs} lists the topic configs Kafka
 * 4.4 defines that Tributary refuses, and why: no Kafka topic config is accepted and ignored. Plain
 * Java, no Spring.
 */
package io.tributary.common.topic;
