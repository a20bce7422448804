package io.tributary.gateway.admin;

import io.swagger.v3.oas.annotations.Operation;
import io.tributary.gateway.admin.TopicDtos.PartitionDescription;
import io.tributary.gateway.admin.TopicDtos.PartitionOffset;
import io.tributary.gateway.admin.TopicDtos.TopicCreateRequest;
import io.tributary.gateway.admin.TopicDtos.TopicCreated;
import io.tributary.gateway.admin.TopicDtos.TopicDescription;
import io.tributary.gateway.admin.TopicDtos.TopicList;
import io.tributary.gateway.admin.TopicDtos.TopicOffsets;
import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.record.Timestamps;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code /v1/topics}: create, list, describe, delete, offsets. */
@RestController
public class TopicsController {

    /** How often a new topic's visibility is checked; short, since it takes milliseconds. */
    private static final Duration VISIBILITY_POLL = Duration.ofMillis(50);

    private final Admin admin;
    private final TopicCatalog catalog;
    private final Duration timeout;

    public TopicsController(Admin admin, TopicCatalog catalog, Duration clusterTimeout) {
        this.admin = admin;
        this.catalog = catalog;
        this.timeout = clusterTimeout;
    }

    @Operation(operationId = "createTopic", summary = "Create a topic")
    @PostMapping(path = "/v1/topics", consumes = "application/json")
    public ResponseEntity<TopicCreated> create(@RequestBody TopicCreateRequest request) {
        TopicNames.requireValid(request.name());
        if (request.partitions() != null && request.partitions() < 1) {
            throw new ProblemException(ProblemType.INVALID_TOPIC_REQUEST, "partitions must be 1 or more.");
        }
        if (request.replicationFactor() != null
                && (request.replicationFactor() < 1 || request.replicationFactor() > Short.MAX_VALUE)) {
            throw new ProblemException(ProblemType.INVALID_TOPIC_REQUEST, "replication_factor must be 1 or more.");
        }
        NewTopic topic = new NewTopic(
                request.name(),
                Optional.ofNullable(request.partitions()),
                Optional.ofNullable(request.replicationFactor()).map(Integer::shortValue));
        if (request.configs() != null) {
            topic.configs(request.configs());
        }
        CreateTopicsResult result = admin.createTopics(List.of(topic));
        String id = get(result.topicId(request.name())).toString();
        Integer partitions = get(result.numPartitions(request.name()));
        Integer replication = get(result.replicationFactor(request.name()));
        catalog.forget(request.name());
        awaitVisible(request.name());
        return ResponseEntity.created(URI.create("/v1/topics/" + request.name()))
                .body(new TopicCreated(request.name(), id, partitions, replication));
    }

    @Operation(operationId = "listTopics", summary = "List topics")
    @GetMapping(path = "/v1/topics")
    public TopicList list() {
        List<String> names = new ArrayList<>(get(
                admin.listTopics(new ListTopicsOptions().listInternal(false)).names()));
        names.sort(Comparator.naturalOrder());
        return new TopicList(names);
    }

    @Operation(operationId = "describeTopic", summary = "Describe a topic")
    @GetMapping(path = "/v1/topics/{topic}")
    public TopicDescription describe(@PathVariable("topic") String topic) {
        TopicNames.requireValid(topic);
        org.apache.kafka.clients.admin.TopicDescription d = describeOrNotFound(topic);
        List<TopicPartition> tps = d.partitions().stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        Map<TopicPartition, ListOffsetsResultInfo> earliest = offsets(tps, OffsetSpec.earliest());
        Map<TopicPartition, ListOffsetsResultInfo> latest = offsets(tps, OffsetSpec.latest());
        List<PartitionDescription> partitions = new ArrayList<>();
        for (TopicPartitionInfo p : d.partitions()) {
            TopicPartition tp = new TopicPartition(topic, p.partition());
            partitions.add(new PartitionDescription(
                    p.partition(),
                    p.leader() == null || p.leader().isEmpty()
                            ? null
                            : p.leader().id(),
                    p.replicas().stream().map(Node::id).toList(),
                    p.isr().stream().map(Node::id).toList(),
                    earliest.get(tp).offset(),
                    latest.get(tp).offset()));
        }
        return new TopicDescription(topic, d.topicId().toString(), partitions);
    }

    @Operation(operationId = "deleteTopic", summary = "Delete a topic")
    @DeleteMapping(path = "/v1/topics/{topic}")
    public ResponseEntity<Void> delete(@PathVariable("topic") String topic) {
        TopicNames.requireValid(topic);
        try {
            get(admin.deleteTopics(List.of(topic)).all());
        } catch (ProblemException e) {
            throw e.type() == ProblemType.TOPIC_NOT_FOUND ? notFound(topic) : e;
        } finally {
            catalog.forget(topic);
        }
        return ResponseEntity.status(HttpStatus.NO_CONTENT).build();
    }

    @Operation(operationId = "topicOffsets", summary = "Offsets of every partition at a point in time")
    @GetMapping(path = "/v1/topics/{topic}/offsets")
    public TopicOffsets offsets(
            @PathVariable("topic") String topic,
            @RequestParam(name = "timestamp", required = false, defaultValue = "latest") String timestamp) {
        TopicNames.requireValid(topic);
        OffsetSpec spec;
        boolean byTime = false;
        switch (timestamp) {
            case "earliest" -> spec = OffsetSpec.earliest();
            case "latest" -> spec = OffsetSpec.latest();
            default -> {
                OptionalLong ms = Timestamps.parse(timestamp);
                if (ms.isEmpty()) {
                    throw ProblemException.invalidParameter(
                            "timestamp",
                            "timestamp must be earliest, latest, RFC 3339 or epoch milliseconds, got '%s'."
                                    .formatted(timestamp));
                }
                spec = OffsetSpec.forTimestamp(ms.getAsLong());
                byTime = true;
            }
        }
        org.apache.kafka.clients.admin.TopicDescription d = describeOrNotFound(topic);
        List<TopicPartition> tps = d.partitions().stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        Map<TopicPartition, ListOffsetsResultInfo> found = offsets(tps, spec);
        List<PartitionOffset> partitions = new ArrayList<>();
        for (TopicPartition tp : tps) {
            ListOffsetsResultInfo info = found.get(tp);
            boolean none = info.offset() < 0;
            partitions.add(new PartitionOffset(
                    tp.partition(),
                    none ? null : info.offset(),
                    byTime && !none ? Timestamps.format(info.timestamp()).orElse(null) : null));
        }
        return new TopicOffsets(topic, timestamp, partitions);
    }

    /**
     * The controller has committed the topic; brokers learn of it a moment later. Waiting (at most the
     * cluster timeout) until it is described means a 201 is followed by produce and fetch that work.
     */
    private void awaitVisible(String topic) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                catalog.partitions(topic);
                return;
            } catch (ProblemException e) {
                if (e.type() != ProblemType.TOPIC_NOT_FOUND) {
                    return;
                }
            }
            try {
                Thread.sleep(VISIBILITY_POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private org.apache.kafka.clients.admin.TopicDescription describeOrNotFound(String topic) {
        try {
            return get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
        } catch (ProblemException e) {
            throw e.type() == ProblemType.TOPIC_NOT_FOUND ? notFound(topic) : e;
        }
    }

    private Map<TopicPartition, ListOffsetsResultInfo> offsets(List<TopicPartition> tps, OffsetSpec spec) {
        Map<TopicPartition, OffsetSpec> request =
                tps.stream().collect(Collectors.toMap(Function.identity(), tp -> spec));
        return get(admin.listOffsets(request).all());
    }

    private static ProblemException notFound(String topic) {
        return new ProblemException(ProblemType.TOPIC_NOT_FOUND, "Topic '%s' does not exist.".formatted(topic));
    }

    private <T> T get(KafkaFuture<T> future) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while asking the cluster.");
        } catch (Exception e) {
            throw KafkaProblems.toProblem(e);
        }
    }
}
