package io.tributary.gateway.groups;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/** The JSON of the group endpoints (names as in the contract). */
public final class GroupDtos {

    private GroupDtos() {}

    @Schema(name = "GroupList")
    public record GroupList(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<GroupSummary> groups) {
        public GroupList {
            groups = List.copyOf(groups);
        }
    }

    @Schema(name = "GroupSummary")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GroupSummary(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String group,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String state,

            String type) {}

    @Schema(name = "GroupDescription")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GroupDescription(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String group,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String state,

            String type,
            String assignor,
            @JsonProperty("group_epoch") Integer groupEpoch,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<GroupMember> members,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<PartitionLag> partitions) {
        public GroupDescription {
            members = List.copyOf(members);
            partitions = List.copyOf(partitions);
        }
    }

    @Schema(name = "GroupMember")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record GroupMember(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED) @JsonProperty("member_id")
            String memberId,

            String member,
            @JsonProperty("member_epoch") Integer memberEpoch,
            @JsonProperty("client_id") String clientId,
            String host,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<TopicPartitionRef> assignment) {
        public GroupMember {
            assignment = List.copyOf(assignment);
        }
    }

    @Schema(name = "TopicPartitionRef")
    public record TopicPartitionRef(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String topic,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int partition) {}

    @Schema(name = "PartitionLag")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PartitionLag(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String topic,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int partition,

            @JsonProperty("committed_offset") Long committedOffset,
            @JsonProperty("log_end_offset") Long logEndOffset,
            Long lag,
            @JsonProperty("member_id") String memberId) {}

    @Schema(name = "CommitRequest")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CommitRequest(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String member,

            String cursor,
            List<CommitOffset> offsets) {}

    @Schema(name = "CommitOffset")
    public record CommitOffset(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String topic,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Integer partition,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Long offset) {}

    @Schema(name = "CommitResult")
    public record CommitResult(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String group,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String member,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<CommitOffset> committed,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED) @JsonProperty("not_assigned")
            List<TopicPartitionRef> notAssigned) {
        public CommitResult {
            committed = List.copyOf(committed);
            notAssigned = List.copyOf(notAssigned);
        }
    }
}
