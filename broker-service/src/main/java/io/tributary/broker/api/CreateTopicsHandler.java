package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.log.TopicConfigCatalog;
import io.tributary.broker.log.TopicConfigDefaults;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CreateTopics (API key 19), versions 2 to 7, forwarded to the coordinators' control plane.
 *
 * <p>Per topic, in this order (the first failure is the topic's error): a name given twice is
 * INVALID_REQUEST; an illegal name INVALID_TOPIC_EXCEPTION; manual replica assignments INVALID_REQUEST
 * (Tributary places replicas itself); {@code num_partitions} 0 or below -1 INVALID_PARTITIONS, -1 the
 * broker default; {@code replication_factor} likewise INVALID_REPLICATION_FACTOR or the default; a
 * config that {@link TopicConfigCatalog} does not accept INVALID_CONFIG. Then the topic is created
 * (the coordinators may still refuse: TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR when fewer
 * brokers are alive, ...; see {@link ControlPlaneErrors}).
 *
 * <p>{@code validate_only} runs the same checks and, against this broker's image, whether the topic
 * exists and whether enough brokers are registered for the replication factor (fenced ones count,
 * as in the coordinators' placement; at least one must be alive), and creates nothing.
 *
 * <p>After the writes the handler waits (at most {@code timeout_ms}, capped by {@link
 * AdminApiConfig#maxMetadataWait()}) until this broker's image holds the new topics, so that the
 * client's next Metadata request sees them; a topic the image has not reached by then is answered
 * REQUEST_TIMED_OUT (it was created and will appear shortly). {@code timeout_ms} of 0 or less does not
 * wait. From v5 a created topic's partitions, replication factor and configs are returned; from v7 its
 * id.
 *
 * <p>Authorization (with an authorizer), as Kafka's controller: after the duplicate-name check and
 * before any other, CREATE on the cluster, else on the topic (TOPIC_AUTHORIZATION_FAILED,
 * "Authorization failed.", also for an illegal name); a topic created (or validated) without
 * DESCRIBE_CONFIGS on it has its partitions, replication factor and configs withheld ({@code -1},
 * {@code -1}, none) and {@code topic_config_error_code} TOPIC_AUTHORIZATION_FAILED (v5+, KIP-525).
 * The cluster probe and the DESCRIBE_CONFIGS check are not audited (Kafka logs neither refusal).
 *
 * <p>Thread-safety: stateless.
 */
public final class CreateTopicsHandler implements RequestHandler {

    private static final Logger log = LoggerFactory.getLogger(CreateTopicsHandler.class);

    private final MetadataView metadata;
    private final ControlPlane controlPlane;
    private final AdminApiConfig config;
    private final AccessControl acls;
    private final ControllerMutationQuota mutations;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public CreateTopicsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        this(metadata, controlPlane, config, AccessControl.OPEN);
    }

    /** @param acls who may create which topic: CREATE on the cluster, else on the topic */
    public CreateTopicsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl acls) {
        this(metadata, controlPlane, config, acls, ControllerMutationQuota.unlimited());
    }

    /**
     * @param acls who may create which topic: CREATE on the cluster, else on the topic
     * @param mutations the {@code controller_mutation_rate} quotas its partitions count against
     */
    public CreateTopicsHandler(
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
                ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.oldestVersion(), ApiKeys.CREATE_TOPICS.latestVersion());
    }

    /** The first version whose clients know THROTTLING_QUOTA_EXCEEDED (KIP-599's strict quota). */
    static final short STRICT_QUOTA_SINCE = 6;

    /** A topic refused by its caller's {@code controller_mutation_rate} (strict versions only). */
    static ApiError throttled() {
        return new ApiError(Errors.THROTTLING_QUOTA_EXCEEDED, Errors.THROTTLING_QUOTA_EXCEEDED.message());
    }

    /** A topic that passed the local checks. */
    private record Valid(String name, int partitions, short replicationFactor, SortedMap<String, String> configs) {}

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        CreateTopicsRequestData data = request.body(CreateTopicsRequest.class).data();
        ClusterImage image = metadata.image();
        Map<String, Integer> occurrences = new HashMap<>();
        data.topics().forEach(t -> occurrences.merge(t.name(), 1, Integer::sum));

        var results = new CreateTopicsResponseData.CreatableTopicResultCollection();
        Set<String> answered = new HashSet<>();
        Map<String, Long> createdAt = new HashMap<>();
        List<CreatableTopicResult> created = new ArrayList<>();
        ConnectionInfo caller = request.connection();
        boolean clusterCreate =
                acls.allowedQuietly(caller, AclOperation.CREATE, AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME);
        ControllerMutationQuota.MutationPermits permits = mutations.permitsFor(request, STRICT_QUOTA_SINCE);
        for (CreatableTopic topic : data.topics()) {
            if (!answered.add(topic.name())) {
                continue;
            }
            if (occurrences.get(topic.name()) > 1) {
                results.add(failed(topic.name(), new ApiError(Errors.INVALID_REQUEST, "duplicate topic name")));
                continue;
            }
            if (!clusterCreate && !acls.allowed(caller, AclOperation.CREATE, AclResourceType.TOPIC, topic.name())) {
                results.add(
                        failed(topic.name(), new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED, AUTHORIZATION_FAILED)));
                continue;
            }
            boolean describable =
                    acls.allowedQuietly(caller, AclOperation.DESCRIBE_CONFIGS, AclResourceType.TOPIC, topic.name());
            Checked checked = validate(topic, image, data.validateOnly());
            if (checked.error() != null) {
                results.add(failed(topic.name(), checked.error()));
                continue;
            }
            Valid valid = checked.valid();
            if (data.validateOnly()) {
                results.add(succeeded(valid, Uuid.ZERO_UUID, config.topicDefaults(), describable));
                continue;
            }
            if (!permits.tryTake(valid.partitions())) {
                results.add(failed(topic.name(), throttled()));
                continue;
            }
            try {
                ControlPlane.TopicWrite write = controlPlane.createTopic(
                        valid.name(), valid.partitions(), valid.replicationFactor(), valid.configs());
                log.info(
                        "Created topic {} ({} partitions, replication factor {}) at metadata version {}",
                        valid.name(),
                        valid.partitions(),
                        valid.replicationFactor(),
                        write.version());
                CreatableTopicResult result = succeeded(valid, write.topic().id(), config.topicDefaults(), describable);
                createdAt.put(valid.name(), write.version());
                created.add(result);
                results.add(result);
            } catch (ControlPlaneException e) {
                results.add(failed(
                        topic.name(),
                        e.kind() == ControlPlaneException.Kind.TOPIC_EXISTS
                                ? topicExists(topic.name())
                                : ControlPlaneErrors.toApiError(e)));
            }
        }

        if (!createdAt.isEmpty()) {
            long newest =
                    createdAt.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            Duration budget = ClusterViews.waitBudget(data.timeoutMs(), config.maxMetadataWait());
            if (!ClusterViews.awaitVersion(metadata, newest, budget)) {
                long reached = metadata.image().version();
                for (CreatableTopicResult result : created) {
                    long version = createdAt.get(result.name());
                    if (version > reached) {
                        result.setErrorCode(Errors.REQUEST_TIMED_OUT.code())
                                .setErrorMessage(
                                        "topic '%s' was created at metadata version %d, which this broker has not reached within %d ms; it will appear shortly"
                                                .formatted(result.name(), version, budget.toMillis()));
                    }
                }
            }
        }
        return new CreateTopicsResponse(
                new CreateTopicsResponseData().setTopics(results).setThrottleTimeMs(permits.throttleTimeMs()));
    }

    /** Either a valid topic or its error. */
    private record Checked(Valid valid, ApiError error) {}

    private Checked validate(CreatableTopic topic, ClusterImage image, boolean validateOnly) {
        String name = topic.name();
        Optional<ApiError> invalidName = ClusterViews.invalidTopicName(name);
        if (invalidName.isPresent()) {
            return new Checked(null, invalidName.get());
        }
        if (!topic.assignments().isEmpty()) {
            return new Checked(
                    null,
                    new ApiError(
                            Errors.INVALID_REQUEST,
                            "manual replica assignments are not supported: give num_partitions and"
                                    + " replication_factor and Tributary places the replicas"));
        }
        int partitions = topic.numPartitions() == -1 ? config.defaultPartitions() : topic.numPartitions();
        if (partitions <= 0) {
            return new Checked(
                    null,
                    new ApiError(
                            Errors.INVALID_PARTITIONS,
                            "number of partitions must be larger than 0, or -1 to use the default, got "
                                    + topic.numPartitions()));
        }
        short replicationFactor =
                topic.replicationFactor() == -1 ? config.defaultReplicationFactor() : topic.replicationFactor();
        if (replicationFactor <= 0) {
            return new Checked(
                    null,
                    new ApiError(
                            Errors.INVALID_REPLICATION_FACTOR,
                            "replication factor must be larger than 0, or -1 to use the default, got "
                                    + topic.replicationFactor()));
        }
        Map<String, String> requested = new HashMap<>();
        for (CreatableTopicConfig c : topic.configs()) {
            if (c.value() == null) {
                return new Checked(
                        null,
                        new ApiError(Errors.INVALID_CONFIG, "null value not supported for topic config " + c.name()));
            }
            if (requested.put(c.name(), c.value()) != null) {
                return new Checked(
                        null, new ApiError(Errors.INVALID_REQUEST, "topic config " + c.name() + " given twice"));
            }
        }
        SortedMap<String, String> configs;
        try {
            configs = TopicConfigCatalog.validate(requested);
        } catch (InvalidConfigurationException e) {
            return new Checked(null, new ApiError(Errors.INVALID_CONFIG, e.getMessage()));
        }
        if (validateOnly) {
            if (image.topic(name).isPresent()) {
                return new Checked(null, topicExists(name));
            }
            // The coordinators' placement rule (Kafka's KRaft one): fenced brokers fill what the
            // alive ones cannot hold, so only the registered brokers bound the replication factor.
            int alive = ClusterViews.aliveBrokerIds(image).size();
            int registered = image.brokers().size();
            if (replicationFactor > registered || alive == 0) {
                return new Checked(
                        null,
                        new ApiError(
                                Errors.INVALID_REPLICATION_FACTOR,
                                alive == 0
                                        ? "no alive broker"
                                        : "replication factor %d is larger than the %d registered brokers"
                                                .formatted(replicationFactor, registered)));
            }
        }
        return new Checked(new Valid(name, partitions, replicationFactor, configs), null);
    }

    private static CreatableTopicResult failed(String name, ApiError error) {
        return new CreatableTopicResult()
                .setName(name)
                .setErrorCode(error.error().code())
                .setErrorMessage(error.message())
                .setNumPartitions(-1)
                .setReplicationFactor((short) -1)
                .setConfigs(null);
    }

    /** Kafka's message for a topic the caller may not create. */
    static final String AUTHORIZATION_FAILED = "Authorization failed.";

    /**
     * A created (or validated) topic's result; without {@code describable} (DESCRIBE_CONFIGS on it)
     * its partitions, replication factor and configs are withheld, as Kafka's controller does.
     */
    private static CreatableTopicResult succeeded(
            Valid valid, Uuid id, TopicConfigDefaults defaults, boolean describable) {
        if (!describable) {
            return new CreatableTopicResult()
                    .setName(valid.name())
                    .setTopicId(id)
                    .setErrorCode(Errors.NONE.code())
                    .setTopicConfigErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        List<CreatableTopicConfigs> configs = new ArrayList<>();
        for (TopicConfigEntries.Entry entry : TopicConfigEntries.of(valid.configs(), defaults)) {
            configs.add(new CreatableTopicConfigs()
                    .setName(entry.name())
                    .setValue(entry.value())
                    .setReadOnly(false)
                    .setConfigSource(entry.source().id())
                    .setIsSensitive(false));
        }
        return new CreatableTopicResult()
                .setName(valid.name())
                .setTopicId(id)
                .setErrorCode(Errors.NONE.code())
                .setNumPartitions(valid.partitions())
                .setReplicationFactor(valid.replicationFactor())
                .setConfigs(configs);
    }

    /**
     * TOPIC_ALREADY_EXISTS with Kafka's own message (its controller's wording), not the
     * coordinator's: clients show it, and it must not name the control plane's HTTP call.
     */
    static ApiError topicExists(String name) {
        return new ApiError(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
    }
}
