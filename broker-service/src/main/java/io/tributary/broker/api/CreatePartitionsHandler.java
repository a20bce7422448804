package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.quota.ControllerMutationQuota;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CreatePartitions (API key 37), versions 0 to 3: grows topics through the coordinators' control
 * plane ({@link ControlPlane#createPartitions}); the coordinators place the new replicas.
 *
 * <p>Per topic: given twice, or with manual assignments, INVALID_REQUEST; an illegal name, or a
 * topic this broker does not know when validating only, UNKNOWN_TOPIC_OR_PARTITION; a count that is
 * not larger than the partitions the topic has in this broker's image INVALID_PARTITIONS (the image may
 * lag behind, never ahead, so this refusal is always right; the coordinators check again). {@code
 * validate_only} stops after these checks. After the writes the handler waits for its metadata
 * version as {@link CreateTopicsHandler} does (REQUEST_TIMED_OUT when not reached).
 *
 * <p>Authorization (with an authorizer), as Kafka's controller: after the duplicate-name check and
 * before any other, ALTER on the topic (no cluster fallback); refused: TOPIC_AUTHORIZATION_FAILED
 * without a message, also for a topic that does not exist.
 *
 * <p>Thread-safety: stateless.
 */
public final class CreatePartitionsHandler implements RequestHandler {

    private static final Logger log = LoggerFactory.getLogger(CreatePartitionsHandler.class);

    private final MetadataView metadata;
    private final ControlPlane controlPlane;
    private final AdminApiConfig config;
    private final AccessControl acls;
    private final ControllerMutationQuota mutations;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public CreatePartitionsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        this(metadata, controlPlane, config, AccessControl.OPEN);
    }

    /** @param acls who may grow which topic: ALTER on it */
    public CreatePartitionsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl acls) {
        this(metadata, controlPlane, config, acls, ControllerMutationQuota.unlimited());
    }

    /**
     * @param acls who may grow which topic: ALTER on it
     * @param mutations the {@code controller_mutation_rate} quotas its partitions count against
     */
    public CreatePartitionsHandler(
            MetadataView metadata,
            ControlPlane controlPlane,
            AdminApiConfig config,
            AccessControl acls,
            ControllerMutationQuota mutations) {
        this.mutations = Objects.requireNonNull(mutations, "mutations");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.config = Objects.requireNonNull(config, "config");
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.CREATE_PARTITIONS,
                ApiKeys.CREATE_PARTITIONS.oldestVersion(),
                ApiKeys.CREATE_PARTITIONS.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        CreatePartitionsRequestData data =
                request.body(CreatePartitionsRequest.class).data();
        ClusterImage image = metadata.image();
        Map<String, Integer> occurrences = new HashMap<>();
        data.topics().forEach(t -> occurrences.merge(t.name(), 1, Integer::sum));

        List<CreatePartitionsTopicResult> results = new ArrayList<>();
        Map<CreatePartitionsTopicResult, Long> grownAt = new IdentityHashMap<>();
        Set<String> answered = new HashSet<>();
        ControllerMutationQuota.MutationPermits permits = mutations.permitsFor(request, (short) 3);
        for (CreatePartitionsTopic topic : data.topics()) {
            if (!answered.add(topic.name())) {
                continue;
            }
            var result = new CreatePartitionsTopicResult()
                    .setName(topic.name())
                    .setErrorCode(Errors.NONE.code())
                    .setErrorMessage(null);
            results.add(result);
            ConnectionInfo caller = request.connection();
            if (occurrences.get(topic.name()) == 1
                    && !acls.allowed(caller, AclOperation.ALTER, AclResourceType.TOPIC, topic.name())) {
                fail(result, new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED, null));
                continue;
            }
            Optional<ApiError> problem = check(topic, occurrences.get(topic.name()), image, data.validateOnly());
            if (problem.isPresent()) {
                fail(result, problem.get());
                continue;
            }
            if (data.validateOnly()) {
                continue;
            }
            int added = topic.count()
                    - image.topic(topic.name()).map(t -> t.partitions().size()).orElse(topic.count());
            if (!permits.tryTake(added)) {
                fail(result, CreateTopicsHandler.throttled());
                continue;
            }
            try {
                ControlPlane.TopicWrite write = controlPlane.createPartitions(topic.name(), topic.count());
                log.info(
                        "Grew topic {} to {} partitions at metadata version {}",
                        topic.name(),
                        topic.count(),
                        write.version());
                grownAt.put(result, write.version());
            } catch (ControlPlaneException e) {
                fail(result, ControlPlaneErrors.toApiError(e));
            }
        }

        if (!grownAt.isEmpty()) {
            long newest =
                    grownAt.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            Duration budget = ClusterViews.waitBudget(data.timeoutMs(), config.maxMetadataWait());
            if (!ClusterViews.awaitVersion(metadata, newest, budget)) {
                long reached = metadata.image().version();
                grownAt.forEach((result, version) -> {
                    if (version > reached) {
                        fail(
                                result,
                                new ApiError(
                                        Errors.REQUEST_TIMED_OUT,
                                        "partitions of '%s' were created at metadata version %d, which this broker has not reached within %d ms"
                                                .formatted(result.name(), version, budget.toMillis())));
                    }
                });
            }
        }
        return new CreatePartitionsResponse(
                new CreatePartitionsResponseData().setResults(results).setThrottleTimeMs(permits.throttleTimeMs()));
    }

    private static Optional<ApiError> check(
            CreatePartitionsTopic topic, int occurrences, ClusterImage image, boolean validateOnly) {
        if (occurrences > 1) {
            return Optional.of(new ApiError(Errors.INVALID_REQUEST, "duplicate topic name"));
        }
        if (topic.assignments() != null) {
            return Optional.of(new ApiError(
                    Errors.INVALID_REQUEST,
                    "manual replica assignments are not supported: give the new count and Tributary places the"
                            + " replicas"));
        }
        if (ClusterViews.invalidTopicName(topic.name()).isPresent()) {
            return Optional.of(unknown(topic.name()));
        }
        if (topic.count() <= 0) {
            return Optional.of(new ApiError(
                    Errors.INVALID_PARTITIONS, "number of partitions must be larger than 0, got " + topic.count()));
        }
        Optional<TopicInfo> known = image.topic(topic.name());
        if (known.isEmpty()) {
            return validateOnly ? Optional.of(unknown(topic.name())) : Optional.empty();
        }
        int current = known.get().partitions().size();
        if (topic.count() == current) {
            return Optional.of(new ApiError(Errors.INVALID_PARTITIONS, "topic already has " + current + " partitions"));
        }
        if (topic.count() < current) {
            return Optional.of(new ApiError(
                    Errors.INVALID_PARTITIONS,
                    "topic currently has %d partitions, which is higher than the requested %d"
                            .formatted(current, topic.count())));
        }
        return Optional.empty();
    }

    private static ApiError unknown(String name) {
        return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no topic named '" + name + "'");
    }

    private static void fail(CreatePartitionsTopicResult result, ApiError error) {
        result.setErrorCode(error.error().code()).setErrorMessage(error.message());
    }
}
