package io.tributary.gateway.admin;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/** The JSON of the topic endpoints (names as in the contract). */
public final class TopicDtos {

    private TopicDtos() {}

    @Schema(name = "TopicCreateRequest")
    public record TopicCreateRequest(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String name,

            Integer partitions,
            @JsonProperty("replication_factor") Integer replicationFactor,
            Map<String, String> configs) {}

    @Schema(name = "TopicCreated")
    public record TopicCreated(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String name,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED) @JsonProperty("topic_id")
            String topicId,

            Integer partitions,
            @JsonProperty("replication_factor") Integer replicationFactor) {}

    @Schema(name = "TopicList")
    public record TopicList(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<String> topics) {
        public TopicList {
            topics = List.copyOf(topics);
        }
    }

    @Schema(name = "TopicDescription")
    public record TopicDescription(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String name,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED) @JsonProperty("topic_id")
            String topicId,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<PartitionDescription> partitions) {
        public TopicDescription {
            partitions = List.copyOf(partitions);
        }
    }

    @Schema(name = "PartitionDescription")
    public record PartitionDescription(
            int partition,
            Integer leader,
            List<Integer> replicas,
            List<Integer> isr,
            @JsonProperty("log_start_offset") long logStartOffset,
            @JsonProperty("high_watermark") long highWatermark) {}

    @Schema(name = "TopicOffsets")
    public record TopicOffsets(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String topic,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String timestamp,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<PartitionOffset> partitions) {
        public TopicOffsets {
            partitions = List.copyOf(partitions);
        }
    }

    @Schema(name = "PartitionOffset")
    public record PartitionOffset(int partition, Long offset, String timestamp) {}
}
