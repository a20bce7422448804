package io.tributary.gateway.groups;

import io.swagger.v3.oas.annotations.Operation;
import io.tributary.gateway.groups.GroupDtos.CommitOffset;
import io.tributary.gateway.groups.GroupDtos.CommitRequest;
import io.tributary.gateway.groups.GroupDtos.CommitResult;
import io.tributary.gateway.groups.GroupDtos.GroupDescription;
import io.tributary.gateway.groups.GroupDtos.GroupList;
import io.tributary.gateway.groups.GroupDtos.GroupMember;
import io.tributary.gateway.groups.GroupDtos.GroupSummary;
import io.tributary.gateway.groups.GroupDtos.PartitionLag;
import io.tributary.gateway.groups.GroupDtos.TopicPartitionRef;
import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.sse.GroupCursor;
import io.tributary.gateway.sse.GroupCursorCodec;
import io.tributary.gateway.sse.MalformedCursorException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /v1/groups}, {@code GET /v1/groups/{group}} (through the AdminClient) and {@code POST
 * /v1/groups/{group}/commits} (a manual commit, made by the consumer of the member's stream).
 *
 * <p>A commit must be made by the member itself (the group coordinator fences commits by member id
 * and epoch, and refuses the AdminClient's commits while the group has members), so it reaches the
 * gateway replica holding the member's stream: answered here when the stream is here; otherwise,
 * when replicas advertise their URL ({@code tributary.gateway.groups.advertised-url}, carried in each
 * group consumer's {@code client.id}), the group's description from the coordinator says which
 * replica holds the member and the commit is forwarded there once; else 409 {@code
 * member-not-connected}. No replica keeps a table of the others: where a member is connected is the
 * coordinator's knowledge, so the gateway stays stateless and a load balancer may send the commit to
 * any replica.
 */
@RestController
public class GroupsController {

    private static final Logger log = LoggerFactory.getLogger(GroupsController.class);

    /** Marks a commit forwarded by another replica (it is not forwarded again). */
    static final String FORWARDED_HEADER = "Tributary-Forwarded-Commit";

    /** The prefix of every group consumer's {@code client.id}; the advertised URL follows an {@code @}. */
    public static final String CLIENT_ID = "tributary-gateway-group";

    private static final HttpClient FORWARD = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final Admin admin;
    private final GroupStreamController streams;
    private final GroupsProperties limits;
    private final Duration clusterTimeout;
    private final JsonMapper json;

    public GroupsController(
            Admin admin,
            GroupStreamController streams,
            GroupsProperties limits,
            Duration clusterTimeout,
            JsonMapper json) {
        this.admin = admin;
        this.streams = streams;
        this.limits = limits;
        this.clusterTimeout = clusterTimeout;
        this.json = json;
    }

    @Operation(operationId = "listGroups", summary = "List consumer groups")
    @GetMapping(path = "/v1/groups", produces = "application/json")
    public GroupList list() {
        List<GroupSummary> groups = new ArrayList<>();
        for (GroupListing g : get(admin.listGroups().all())) {
            GroupType type = g.type().orElse(GroupType.UNKNOWN);
            if (type == GroupType.SHARE || type == GroupType.STREAMS) {
                continue;
            }
            groups.add(new GroupSummary(
                    g.groupId(),
                    g.groupState().map(GroupsController::stateName).orElse("unknown"),
                    type == GroupType.UNKNOWN ? null : type.toString().toLowerCase(Locale.ROOT)));
        }
        groups.sort(Comparator.comparing(GroupSummary::group));
        return new GroupList(groups);
    }

    @Operation(
            operationId = "describeGroup",
            summary = "Describe a consumer group: members, assignment, committed offsets, lag")
    @GetMapping(path = "/v1/groups/{group}", produces = "application/json")
    public GroupDescription describe(@PathVariable("group") String group) {
        GroupStreamController.requireName("group", group);
        ConsumerGroupDescription d = describeGroup(group);
        Map<TopicPartition, OffsetAndMetadata> committed =
                get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        List<GroupMember> members = new ArrayList<>();
        Map<TopicPartition, String> owner = new HashMap<>();
        for (MemberDescription m : d.members()) {
            List<TopicPartitionRef> assignment = new ArrayList<>();
            for (TopicPartition tp : sorted(m.assignment().topicPartitions())) {
                assignment.add(new TopicPartitionRef(tp.topic(), tp.partition()));
                owner.put(tp, m.consumerId());
            }
            members.add(new GroupMember(
                    m.consumerId(),
                    m.groupInstanceId().orElse(null),
                    m.memberEpoch().orElse(null),
                    m.clientId(),
                    m.host(),
                    assignment));
        }
        members.sort(Comparator.comparing(GroupMember::memberId));
        Set<TopicPartition> all = new HashSet<>(owner.keySet());
        committed.forEach((tp, o) -> {
            if (o != null) {
                all.add(tp);
            }
        });
        Map<TopicPartition, OffsetSpec> query = new HashMap<>();
        all.forEach(tp -> query.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        if (!query.isEmpty()) {
            ListOffsetsResult result = admin.listOffsets(query);
            for (TopicPartition tp : all) {
                try {
                    ends.put(
                            tp,
                            result.partitionResult(tp)
                                    .get(clusterTimeout.toMillis(), TimeUnit.MILLISECONDS)
                                    .offset());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ProblemException(
                            ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while asking the cluster.");
                } catch (ExecutionException | TimeoutException e) {
                    log.debug("No log end offset for {}: {}", tp, e.toString()); // a deleted topic: no end, no lag
                }
            }
        }
        List<PartitionLag> partitions = new ArrayList<>();
        for (TopicPartition tp : sorted(all)) {
            OffsetAndMetadata c = committed.get(tp);
            Long end = ends.get(tp);
            Long offset = c == null ? null : c.offset();
            Long lag = end == null ? null : Math.max(0, end - (offset == null ? 0 : offset));
            partitions.add(new PartitionLag(
                    tp.topic(), tp.partition(), offset, end, offset == null ? null : lag, owner.get(tp)));
        }
        return new GroupDescription(
                d.groupId(),
                stateName(d.groupState()),
                d.type() == null ? null : d.type().toString().toLowerCase(Locale.ROOT),
                d.partitionAssignor() == null || d.partitionAssignor().isEmpty() ? null : d.partitionAssignor(),
                d.groupEpoch().orElse(null),
                members,
                partitions);
    }

    @Operation(
            operationId = "commitGroupOffsets",
            summary = "Commit a group member's offsets (streams opened with commit=manual)")
    @io.swagger.v3.oas.annotations.responses.ApiResponse(
            responseCode = "200",
            content =
                    @io.swagger.v3.oas.annotations.media.Content(
                            mediaType = "application/json",
                            schema = @io.swagger.v3.oas.annotations.media.Schema(implementation = CommitResult.class)))
    @PostMapping(path = "/v1/groups/{group}/commits", consumes = "application/json", produces = "application/json")
    public ResponseEntity<?> commit(
            @PathVariable("group") String group,
            @RequestBody CommitRequest request,
            @io.swagger.v3.oas.annotations.Parameter(hidden = true)
                    @RequestHeader(name = FORWARDED_HEADER, required = false)
                    String forwarded) {
        GroupStreamController.requireName("group", group);
        if (request == null || request.member() == null || request.member().isBlank()) {
            throw new ProblemException(
                    ProblemType.INVALID_COMMIT,
                    "A commit names its member: the stream's member= or the member_id of its assigned event.");
        }
        boolean hasCursor = request.cursor() != null && !request.cursor().isBlank();
        boolean hasOffsets = request.offsets() != null && !request.offsets().isEmpty();
        if (hasCursor == hasOffsets) {
            throw new ProblemException(
                    ProblemType.INVALID_COMMIT,
                    "A commit has either a cursor (an event id) or offsets, not both or neither.");
        }
        Map<TopicPartition, Long> offsets = hasOffsets ? offsets(request.offsets()) : Map.of();
        GroupCursor cursor = hasCursor ? cursor(request.cursor()) : GroupCursor.empty(0);

        Optional<GroupStream> local = streams.find(group, request.member());
        if (local.isEmpty()) {
            if (forwarded == null) {
                Optional<ResponseEntity<?>> answer = forward(group, request);
                if (answer.isPresent()) {
                    return answer.get();
                }
            }
            throw new ProblemException(
                    ProblemType.MEMBER_NOT_CONNECTED,
                    ("No stream of member '%s' of group '%s' is connected to this gateway%s; open the stream"
                                    + " (GET /v1/groups/%s/events?commit=manual) first, or send the commit to the"
                                    + " replica holding it.")
                            .formatted(
                                    request.member(),
                                    group,
                                    limits.replicaUrl().isPresent()
                                            ? " or to another one the group coordinator knows"
                                            : "",
                                    group));
        }
        GroupStream stream = local.get();
        if (stream.commitMode() != GroupStream.CommitMode.MANUAL) {
            throw new ProblemException(
                    ProblemType.INVALID_COMMIT,
                    "The stream of member '%s' was opened with commit=auto; it commits what it wrote by itself."
                            .formatted(request.member()));
        }
        Map<TopicPartition, Long> toCommit = hasOffsets ? offsets : fromCursor(cursor, stream);
        GroupStream.CommitResult result;
        try {
            result = stream.commit(toCommit, hasCursor)
                    .get(limits.commitTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while committing.");
        } catch (TimeoutException e) {
            throw new ProblemException(
                    ProblemType.CLUSTER_UNAVAILABLE,
                    "The commit did not complete within %s.".formatted(limits.commitTimeout()));
        } catch (ExecutionException e) {
            throw KafkaProblems.toProblem(e.getCause());
        }
        List<CommitOffset> committed = new ArrayList<>();
        sorted(result.committed().keySet())
                .forEach(tp -> committed.add(new CommitOffset(
                        tp.topic(), tp.partition(), result.committed().get(tp))));
        List<TopicPartitionRef> notAssigned = new ArrayList<>();
        sorted(result.notAssigned()).forEach(tp -> notAssigned.add(new TopicPartitionRef(tp.topic(), tp.partition())));
        return ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_JSON)
                .body(new CommitResult(group, request.member(), committed, notAssigned));
    }

    /** The cursor's positions of the stream's topics (other topics' positions are ignored). */
    private static Map<TopicPartition, Long> fromCursor(GroupCursor cursor, GroupStream stream) {
        Map<TopicPartition, Long> out = new HashMap<>();
        stream.state().topicIds().forEach((name, id) -> {
            var p = cursor.nextOffsets().get(id);
            if (p != null) {
                p.forEach((partition, next) -> out.put(new TopicPartition(name, partition), next));
            }
        });
        return out;
    }

    /**
     * Sends the commit to the replica that holds the member's stream, as the group coordinator
     * reports it (the {@code client.id} of the member's consumer); empty when no replica can be found.
     */
    private Optional<ResponseEntity<?>> forward(String group, CommitRequest request) {
        ConsumerGroupDescription d;
        try {
            d = describeGroup(group);
        } catch (ProblemException e) {
            if (e.type() == ProblemType.GROUP_NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
        for (MemberDescription m : d.members()) {
            boolean same = request.member().equals(m.consumerId())
                    || m.groupInstanceId().map(request.member()::equals).orElse(false);
            String prefix = CLIENT_ID + "@";
            if (!same || m.clientId() == null || !m.clientId().startsWith(prefix)) {
                continue;
            }
            URI target;
            try {
                target = URI.create(m.clientId().substring(prefix.length()));
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (limits.replicaUrl().map(target::equals).orElse(false)) {
                return Optional.empty(); // it names this replica: the stream has just ended here
            }
            URI uri = target.resolve("/v1/groups/"
                    + java.net.URLEncoder.encode(group, java.nio.charset.StandardCharsets.UTF_8)
                            .replace("+", "%20") + "/commits");
            HttpRequest forward = HttpRequest.newBuilder(uri)
                    .timeout(limits.commitTimeout())
                    .header("Content-Type", "application/json")
                    .header(FORWARDED_HEADER, "1")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(request)))
                    .build();
            try {
                HttpResponse<byte[]> answer = FORWARD.send(forward, HttpResponse.BodyHandlers.ofByteArray());
                String type = answer.headers().firstValue("Content-Type").orElse("application/json");
                return Optional.of(ResponseEntity.status(answer.statusCode())
                        .contentType(MediaType.parseMediaType(type))
                        .body(answer.body()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while forwarding the commit.");
            } catch (java.io.IOException e) {
                log.info("Forwarding a commit of group {} to {} failed: {}", group, uri, e.toString());
                throw new ProblemException(
                        ProblemType.CLUSTER_UNAVAILABLE,
                        "The gateway replica holding member '%s' (%s) did not answer; retry."
                                .formatted(request.member(), target));
            }
        }
        return Optional.empty();
    }

    private static Map<TopicPartition, Long> offsets(List<CommitOffset> offsets) {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (CommitOffset o : offsets) {
            if (o == null || o.topic() == null || o.topic().isBlank() || o.partition() == null || o.offset() == null) {
                throw new ProblemException(
                        ProblemType.INVALID_COMMIT, "Each of offsets has a topic, a partition and an offset.");
            }
            if (o.partition() < 0 || o.offset() < 0) {
                throw new ProblemException(
                        ProblemType.INVALID_COMMIT, "Partitions and offsets are not negative: %s.".formatted(o));
            }
            if (out.put(new TopicPartition(o.topic(), o.partition()), o.offset()) != null) {
                throw new ProblemException(
                        ProblemType.INVALID_COMMIT,
                        "%s-%d is named twice in offsets.".formatted(o.topic(), o.partition()));
            }
        }
        return out;
    }

    private static GroupCursor cursor(String text) {
        try {
            return GroupCursorCodec.decode(text.strip());
        } catch (MalformedCursorException e) {
            throw new ProblemException(
                    ProblemType.INVALID_COMMIT,
                    "cursor is not an event id of a group stream: %s.".formatted(e.getMessage()));
        }
    }

    private ConsumerGroupDescription describeGroup(String group) {
        ConsumerGroupDescription d;
        try {
            d = admin.describeConsumerGroups(List.of(group))
                    .all()
                    .get(clusterTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .get(group);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while asking the cluster.");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                throw groupNotFound(group);
            }
            throw KafkaProblems.toProblem(e);
        } catch (TimeoutException e) {
            throw KafkaProblems.toProblem(e);
        }
        if (d == null || d.groupState() == GroupState.DEAD) {
            throw groupNotFound(group);
        }
        return d;
    }

    private static ProblemException groupNotFound(String group) {
        return new ProblemException(
                ProblemType.GROUP_NOT_FOUND, "Consumer group '%s' does not exist.".formatted(group));
    }

    private static String stateName(GroupState state) {
        return state == null
                ? "unknown"
                : state.toString().toLowerCase(Locale.ROOT).replace(' ', '_');
    }

    private static List<TopicPartition> sorted(java.util.Collection<TopicPartition> tps) {
        List<TopicPartition> list = new ArrayList<>(tps);
        list.sort(GroupStream.ORDER);
        return list;
    }

    private <T> T get(org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(clusterTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while asking the cluster.");
        } catch (ExecutionException | TimeoutException e) {
            throw KafkaProblems.toProblem(e);
        }
    }
}
