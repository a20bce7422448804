package io.tributary.broker.app;

import io.tributary.broker.api.AdminApiConfig;
import io.tributary.broker.log.TopicConfigDefaults;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The broker's metadata and admin Kafka APIs ({@code tributary.broker.admin.*}); each value is
 * described on {@link AdminApiConfig}.
 *
 * @param clusterId the cluster id clients see in Metadata and DescribeCluster; set the same on every
 *     broker of a cluster
 * @param defaultPartitions partitions of a topic created without a count (Kafka's {@code num.partitions})
 * @param defaultReplicationFactor replicas of a topic created without a replication factor (Kafka's
 *     {@code default.replication.factor})
 * @param autoCreateTopics whether Metadata creates missing topics (Kafka's {@code
 *     auto.create.topics.enable}, which defaults to true there; off here)
 * @param producerIdBlockSize producer ids fetched from the coordinators at a time
 * @param maxMetadataWait the longest an admin write waits for its metadata to reach this broker
 */
@Validated
@ConfigurationProperties("tributary.broker.admin")
public record AdminApiProperties(
        @DefaultValue(AdminApiConfig.DEFAULT_CLUSTER_ID) @NotBlank
        String clusterId,

        @DefaultValue("1") @Min(1) @Max(10_000) int defaultPartitions,
        @DefaultValue("1") @Min(1) @Max(Short.MAX_VALUE) int defaultReplicationFactor,
        @DefaultValue("false") boolean autoCreateTopics,
        @DefaultValue("1000") @Min(1) @Max(1_000_000) int producerIdBlockSize,
        @DefaultValue("15s") @NotNull Duration maxMetadataWait) {

    public AdminApiProperties {
        if (maxMetadataWait != null && (maxMetadataWait.isNegative() || maxMetadataWait.compareTo(MAX_WAIT) > 0)) {
            throw new IllegalArgumentException(
                    "tributary.broker.admin.max-metadata-wait must be between 0s and %s, got %s"
                            .formatted(MAX_WAIT, maxMetadataWait));
        }
    }

    /** Upper bound of {@code max-metadata-wait}: Kafka's default admin request timeout. */
    static final Duration MAX_WAIT = Duration.ofMinutes(5);

    /** The core config, with the broker's topic-config defaults. */
    public AdminApiConfig toConfig(TopicConfigDefaults topicDefaults) {
        return new AdminApiConfig(
                clusterId,
                defaultPartitions,
                (short) defaultReplicationFactor,
                autoCreateTopics ? AdminApiConfig.AutoCreateTopics.ENABLED : AdminApiConfig.AutoCreateTopics.DISABLED,
                producerIdBlockSize,
                maxMetadataWait,
                topicDefaults);
    }
}
