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
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DeleteTopics (API key 20), versions 1 to 6, forwarded to the coordinators' control plane.
 *
 * <p>Topics are named (all versions) or, from v6, given by id, which this broker resolves from its
 * image (an unknown id is UNKNOWN_TOPIC_ID). An unknown or illegal name is UNKNOWN_TOPIC_OR_PARTITION;
 * a topic given twice, or a v6 entry with both or neither of name and id, INVALID_REQUEST. After the
 * deletions the handler waits, as {@link CreateTopicsHandler} does, until this broker's image no
 * longer holds the topics; one that is still there when {@code timeout_ms} (capped by {@link
 * AdminApiConfig#maxMetadataWait()}) runs out is answered REQUEST_TIMED_OUT.
 *
 * <p>Authorization (with an authorizer), as Kafka's controller: DELETE on the cluster allows every
 * topic (a probe, not audited); else a topic named needs DESCRIBE on it (else
 * TOPIC_AUTHORIZATION_FAILED, also when it does not exist or its name is illegal, with no id), is
 * then UNKNOWN_TOPIC_OR_PARTITION when missing, and needs DELETE on it (else
 * TOPIC_AUTHORIZATION_FAILED, no id); a topic given by id (an unknown id is UNKNOWN_TOPIC_ID first)
 * needs DELETE, else TOPIC_AUTHORIZATION_FAILED with its name only if the caller may DESCRIBE it.
 * Kafka shuffles its answers; here they stay in the order asked.
 *
 * <p>Thread-safety: stateless.
 */
public final class DeleteTopicsHandler implements RequestHandler {

    private static final Logger log = LoggerFactory.getLogger(DeleteTopicsHandler.class);

    private final MetadataView metadata;
    private final ControlPlane controlPlane;
    private final AdminApiConfig config;
    private final AccessControl acls;
    private final ControllerMutationQuota mutations;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public DeleteTopicsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        this(metadata, controlPlane, config, AccessControl.OPEN);
    }

    /** @param acls who may delete which topic: DELETE on the cluster, else DESCRIBE and DELETE on it */
    public DeleteTopicsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl acls) {
        this(metadata, controlPlane, config, acls, ControllerMutationQuota.unlimited());
    }

    /**
     * @param acls who may delete which topic: DELETE on the cluster, else DESCRIBE and DELETE on it
     * @param mutations the {@code controller_mutation_rate} quotas its partitions count against
     */
    public DeleteTopicsHandler(
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
                ApiKeys.DELETE_TOPICS, ApiKeys.DELETE_TOPICS.oldestVersion(), ApiKeys.DELETE_TOPICS.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        DeleteTopicsRequestData data = request.body(DeleteTopicsRequest.class).data();
        short version = request.header().apiVersion();
        List<DeleteTopicState> asked = new ArrayList<>();
        if (version >= 6) {
            asked.addAll(data.topics());
        } else {
            data.topicNames().forEach(n -> asked.add(new DeleteTopicState().setName(n)));
        }
        Map<Object, Integer> occurrences = new HashMap<>();
        asked.forEach(t -> occurrences.merge(key(t), 1, Integer::sum));

        ClusterImage image = metadata.image();
        List<DeletableTopicResult> results = new ArrayList<>();
        Map<DeletableTopicResult, Long> deletedAt = new IdentityHashMap<>();
        List<Object> answered = new ArrayList<>();
        ConnectionInfo caller = request.connection();
        boolean clusterDelete =
                acls.allowedQuietly(caller, AclOperation.DELETE, AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME);
        ControllerMutationQuota.MutationPermits permits = mutations.permitsFor(request, (short) 5);
        for (DeleteTopicState topic : asked) {
            Object key = key(topic);
            if (answered.contains(key)) {
                continue;
            }
            answered.add(key);
            var result = new DeletableTopicResult().setName(topic.name()).setTopicId(orZero(topic.topicId()));
            results.add(result);
            boolean hasName = topic.name() != null;
            boolean hasId = !orZero(topic.topicId()).equals(Uuid.ZERO_UUID);
            if (hasName == hasId) {
                fail(result, new ApiError(Errors.INVALID_REQUEST, "give either a topic name or a topic id"));
                continue;
            }
            if (occurrences.get(key) > 1) {
                fail(result, new ApiError(Errors.INVALID_REQUEST, "topic given more than once"));
                continue;
            }
            String name = topic.name();
            if (hasId) {
                Optional<TopicInfo> byId = image.topic(topic.topicId());
                if (byId.isEmpty()) {
                    fail(result, new ApiError(Errors.UNKNOWN_TOPIC_ID, "no topic has id " + topic.topicId()));
                    continue;
                }
                name = byId.get().name();
                if (!clusterDelete && !acls.allowed(caller, AclOperation.DELETE, AclResourceType.TOPIC, name)) {
                    // the name only to a caller who may see it: ids are not secret, names are
                    boolean describable = acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.TOPIC, name);
                    result.setName(describable ? name : null);
                    fail(result, new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED));
                    continue;
                }
                result.setName(name);
            } else {
                if (!clusterDelete && !acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.TOPIC, name)) {
                    fail(result, new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED));
                    continue;
                }
                Optional<TopicInfo> known = image.topic(name);
                known.ifPresent(t -> result.setTopicId(t.id()));
                if (ClusterViews.invalidTopicName(name).isPresent() || (!clusterDelete && known.isEmpty())) {
                    fail(result, new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no topic named '" + name + "'"));
                    continue;
                }
                if (!clusterDelete && !acls.allowed(caller, AclOperation.DELETE, AclResourceType.TOPIC, name)) {
                    result.setTopicId(Uuid.ZERO_UUID);
                    fail(result, new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED));
                    continue;
                }
            }
            int partitions = image.topic(name).map(t -> t.partitions().size()).orElse(0);
            if (!permits.tryTake(partitions)) {
                fail(result, CreateTopicsHandler.throttled());
                continue;
            }
            try {
                long committed = controlPlane.deleteTopic(name);
                log.info("Deleted topic {} at metadata version {}", name, committed);
                deletedAt.put(result, committed);
            } catch (ControlPlaneException e) {
                fail(result, ControlPlaneErrors.toApiError(e));
            }
        }

        if (!deletedAt.isEmpty()) {
            long newest =
                    deletedAt.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            Duration budget = ClusterViews.waitBudget(data.timeoutMs(), config.maxMetadataWait());
            if (!ClusterViews.awaitVersion(metadata, newest, budget)) {
                long reached = metadata.image().version();
                deletedAt.forEach((result, committed) -> {
                    if (committed > reached) {
                        fail(
                                result,
                                new ApiError(
                                        Errors.REQUEST_TIMED_OUT,
                                        "topic '%s' was deleted at metadata version %d, which this broker has not reached within %d ms"
                                                .formatted(result.name(), committed, budget.toMillis())));
                    }
                });
            }
        }
        var collection = new DeleteTopicsResponseData.DeletableTopicResultCollection();
        results.forEach(collection::add);
        return new DeleteTopicsResponse(
                new DeleteTopicsResponseData().setResponses(collection).setThrottleTimeMs(permits.throttleTimeMs()));
    }

    private static Object key(DeleteTopicState topic) {
        return topic.name() != null ? topic.name() : orZero(topic.topicId());
    }

    private static Uuid orZero(Uuid id) {
        return id == null ? Uuid.ZERO_UUID : id;
    }

    private static void fail(DeletableTopicResult result, ApiError error) {
        result.setErrorCode(error.error().code()).setErrorMessage(error.message());
    }
}
