package io.tributary.broker.api;

import io.tributary.broker.log.TopicConfigDefaults;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings of the broker's metadata and admin APIs (the Spring edge binds them from {@code
 * tributary.broker.admin.*}).
 *
 * @param clusterId the cluster id Metadata and DescribeCluster report; the same on every broker
 * @param defaultPartitions partitions of a topic created with {@code num_partitions = -1} or auto-created
 * @param defaultReplicationFactor replicas of a topic created with {@code replication_factor = -1} or
 *     auto-created
 * @param autoCreateTopics whether Metadata creates requested topics that do not exist (when the client
 *     allows it); Kafka's {@code auto.create.topics.enable}, off by default here
 * @param producerIdBlockSize producer ids fetched from the coordinators at a time
 * @param maxMetadataWait the longest an admin write waits for its own metadata version to reach this
 *     broker (a request's own {@code timeout_ms} may shorten it)
 * @param topicDefaults the value of each topic config on a topic that does not set it (this broker's
 *     log settings), as DescribeConfigs and CreateTopics report them
 */
public record AdminApiConfig(
        String clusterId,
        int defaultPartitions,
        short defaultReplicationFactor,
        AutoCreateTopics autoCreateTopics,
        int producerIdBlockSize,
        Duration maxMetadataWait,
        TopicConfigDefaults topicDefaults) {

    /** Whether Metadata creates missing topics (Kafka's {@code auto.create.topics.enable}). */
    public enum AutoCreateTopics {
        ENABLED,
        DISABLED
    }

    public AdminApiConfig {
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(autoCreateTopics, "autoCreateTopics");
        Objects.requireNonNull(maxMetadataWait, "maxMetadataWait");
        Objects.requireNonNull(topicDefaults, "topicDefaults");
        if (clusterId.isBlank()) {
            throw new IllegalArgumentException("clusterId must not be blank");
        }
        if (defaultPartitions < 1) {
            throw new IllegalArgumentException("defaultPartitions must be 1 or more: " + defaultPartitions);
        }
        if (defaultReplicationFactor < 1) {
            throw new IllegalArgumentException(
                    "defaultReplicationFactor must be 1 or more: " + defaultReplicationFactor);
        }
        if (producerIdBlockSize < 1) {
            throw new IllegalArgumentException("producerIdBlockSize must be 1 or more: " + producerIdBlockSize);
        }
        if (maxMetadataWait.isNegative()) {
            throw new IllegalArgumentException("maxMetadataWait must not be negative: " + maxMetadataWait);
        }
    }

    /**
     * The defaults: cluster id {@code tributary}, 1 partition, 1 replica, no auto-creation, blocks of
     * 1000, 15 s, Kafka's topic-config defaults.
     */
    public static AdminApiConfig defaults() {
        return new AdminApiConfig(
                DEFAULT_CLUSTER_ID,
                1,
                (short) 1,
                AutoCreateTopics.DISABLED,
                1000,
                Duration.ofSeconds(15),
                TopicConfigDefaults.kafka());
    }

    public static final String DEFAULT_CLUSTER_ID = "tributary";

    public boolean autoCreateEnabled() {
        return autoCreateTopics == AutoCreateTopics.ENABLED;
    }
}
