package io.tributary.broker.api;

import io.tributary.broker.api.ClusterViews.ClientBroker;
import io.tributary.broker.api.ClusterViews.FencedBrokers;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metadata (API key 3), every version kafka-clients parses (0 to 13), answered from this broker's
 * cluster image.
 *
 * <ul>
 *   <li>Brokers: the registered, unfenced brokers with an endpoint on the listener the request came
 *       in on ({@code PLAINTEXT} inside the cluster, {@code EXTERNAL} on the external listener, see
 *       {@link io.tributary.broker.cluster.BrokerListeners}), at that endpoint; a broker without it
 *       is left out (Kafka lists only alive brokers, on the request's listener). Cluster id: {@link
 *       AdminApiConfig#clusterId()}. Controller id: see {@link ClusterViews#controllerId}.
 *   <li>Topics: all of them (null topic list; an empty one at v0), or those asked for by name or, from
 *       v12, by id. An unknown name is UNKNOWN_TOPIC_OR_PARTITION, an unknown id UNKNOWN_TOPIC_ID (name
 *       null), an illegal name INVALID_TOPIC_EXCEPTION. Topic ids from v10.
 *   <li>Partitions: leader, leader epoch, replicas, ISR, offline replicas (replicas on brokers that are
 *       fenced or unknown). A partition without a leader, or whose leader is not alive, has leader -1
 *       and LEADER_NOT_AVAILABLE; one whose leader is alive but has no endpoint on the request's
 *       listener has leader -1 and LISTENER_NOT_FOUND from v6 (LEADER_NOT_AVAILABLE before), as in
 *       Kafka.
 *   <li>Auto-creation: when {@link AdminApiConfig#autoCreateEnabled()} and the request allows it (always
 *       before v4), a missing topic asked for by name is created through the control plane with the
 *       default partitions and replication factor and answered LEADER_NOT_AVAILABLE, as Kafka does,
 *       so the client asks again once the topic has leaders.
 *   <li>Authorization ({@link AccessControl}; without an authorizer every check allows): all topics
 *       lists only those the caller may DESCRIBE; a topic asked for by name without DESCRIBE is
 *       TOPIC_AUTHORIZATION_FAILED (also when it does not exist or its name is illegal), by id
 *       TOPIC_AUTHORIZATION_FAILED with its id and no name (an unknown id stays UNKNOWN_TOPIC_ID);
 *       auto-creation needs CREATE on the cluster, else on the topic (TOPIC_AUTHORIZATION_FAILED).
 *       Authorized operations (v8+, when asked for): the caller's on each topic listed, and on the
 *       cluster (v8 to v10: 0 without DESCRIBE on it), as Kafka computes them.
 * </ul>
 *
 * <p>Thread-safety: stateless apart from its collaborators, which are thread-safe.
 */
public final class MetadataHandler implements RequestHandler {

    private static final Logger log = LoggerFactory.getLogger(MetadataHandler.class);

    private final MetadataView metadata;
    private final ControlPlane controlPlane;
    private final AdminApiConfig config;
    private final AccessControl acls;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public MetadataHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        this(metadata, controlPlane, config, AccessControl.OPEN);
    }

    public MetadataHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl acls) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.config = Objects.requireNonNull(config, "config");
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.METADATA, ApiKeys.METADATA.oldestVersion(), ApiKeys.METADATA.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        MetadataRequest body = request.body(MetadataRequest.class);
        short version = request.header().apiVersion();
        ClusterImage image = metadata.image();
        String listener = ClusterViews.listenerOf(request);
        Liveness alive =
                new Liveness(ClusterViews.aliveBrokerIds(image), ClusterViews.aliveBrokerIds(image, listener), version);
        boolean includeTopicOperations = version >= 8 && body.data().includeTopicAuthorizedOperations();
        ConnectionInfo caller = request.connection();

        List<MetadataResponseTopic> topics = new ArrayList<>();
        if (body.isAllTopics()) {
            // the topics the caller may not describe are left out, without an audit line each
            image.topics().values().stream()
                    .filter(t -> acls.allowedQuietly(caller, AclOperation.DESCRIBE, AclResourceType.TOPIC, t.name()))
                    .sorted(Comparator.comparing(TopicInfo::name))
                    .forEach(t -> topics.add(describe(t, alive, operations(caller, t, includeTopicOperations))));
        } else {
            for (MetadataRequestTopic requested : distinct(body.data().topics(), version)) {
                topics.add(
                        answer(requested, image, alive, body.allowAutoTopicCreation(), includeTopicOperations, caller));
            }
        }

        var brokers = new MetadataResponseData.MetadataResponseBrokerCollection();
        for (ClientBroker cb : ClusterViews.clientBrokers(image, FencedBrokers.EXCLUDE, listener)) {
            brokers.add(new MetadataResponseBroker()
                    .setNodeId(cb.broker().id())
                    .setHost(cb.endpoint().host())
                    .setPort(cb.endpoint().port())
                    .setRack(cb.broker().rack()));
        }
        var data = new MetadataResponseData()
                .setBrokers(brokers)
                .setClusterId(config.clusterId())
                .setControllerId(ClusterViews.controllerId(image, metadata.brokerId(), listener));
        data.topics().addAll(topics);
        if (version >= 8 && version <= 10 && body.data().includeClusterAuthorizedOperations()) {
            data.setClusterAuthorizedOperations(acls.clusterAuthorizedOperations(caller));
        }
        return new MetadataResponse(data, version);
    }

    /**
     * The requested topics without repeats; Kafka's checks on names and ids for v10 and v11. An entry
     * with a topic id asks by id (kafka-clients leaves its name empty or null), any other by name.
     */
    private static List<MetadataRequestTopic> distinct(List<MetadataRequestTopic> requested, short version) {
        Set<String> names = new LinkedHashSet<>();
        Set<Uuid> ids = new LinkedHashSet<>();
        List<MetadataRequestTopic> result = new ArrayList<>();
        for (MetadataRequestTopic topic : requested) {
            if (version < 12 && topic.name() == null) {
                throw new InvalidRequestException("topic name can not be null for version " + version);
            }
            if (version < 12 && byId(topic)) {
                throw new InvalidRequestException("topic ids are not supported in requests for version " + version);
            }
            if (!byId(topic) && topic.name() == null) {
                throw new InvalidRequestException("a requested topic has neither a name nor an id");
            }
            boolean isNew = byId(topic) ? ids.add(topic.topicId()) : names.add(topic.name());
            if (isNew) {
                result.add(topic);
            }
        }
        return result;
    }

    private static boolean byId(MetadataRequestTopic topic) {
        return topic.topicId() != null && !topic.topicId().equals(Uuid.ZERO_UUID);
    }

    private MetadataResponseTopic answer(
            MetadataRequestTopic requested,
            ClusterImage image,
            Liveness alive,
            boolean allowAutoCreation,
            boolean includeTopicOperations,
            ConnectionInfo caller) {
        if (byId(requested)) {
            Uuid id = requested.topicId();
            Optional<TopicInfo> topic = image.topic(id);
            if (topic.isEmpty()) {
                return error(null, id, Errors.UNKNOWN_TOPIC_ID);
            }
            if (!acls.allowed(
                    caller,
                    AclOperation.DESCRIBE,
                    AclResourceType.TOPIC,
                    topic.get().name())) {
                return error(null, id, Errors.TOPIC_AUTHORIZATION_FAILED); // ids are not secret, names are
            }
            return describe(topic.get(), alive, operations(caller, topic.get(), includeTopicOperations));
        }
        String name = requested.name();
        if (!acls.allowed(caller, AclOperation.DESCRIBE, AclResourceType.TOPIC, name)) {
            return error(name, Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        Optional<TopicInfo> topic = image.topic(name);
        if (topic.isPresent()) {
            return describe(topic.get(), alive, operations(caller, topic.get(), includeTopicOperations));
        }
        Optional<ApiError> invalid = ClusterViews.invalidTopicName(name);
        if (invalid.isPresent()) {
            return error(name, Uuid.ZERO_UUID, invalid.get().error());
        }
        if (config.autoCreateEnabled() && allowAutoCreation) {
            boolean mayCreate = acls.allowedQuietly(
                            caller, AclOperation.CREATE, AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME)
                    || acls.allowed(caller, AclOperation.CREATE, AclResourceType.TOPIC, name);
            return error(name, Uuid.ZERO_UUID, mayCreate ? autoCreate(name) : Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        return error(name, Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    /** The caller's authorized operations on {@code topic} when asked for, else empty. */
    private OptionalInt operations(ConnectionInfo caller, TopicInfo topic, boolean include) {
        return include
                ? OptionalInt.of(acls.authorizedOperations(caller, AclResourceType.TOPIC, topic.name()))
                : OptionalInt.empty();
    }

    /**
     * Creates {@code name} with the broker defaults. LEADER_NOT_AVAILABLE when it was created or
     * someone else created it meanwhile, or the coordinators could not be reached (the client retries
     * all three); the coordinators' refusal otherwise.
     */
    private Errors autoCreate(String name) {
        try {
            var write = controlPlane.createTopic(
                    name, config.defaultPartitions(), config.defaultReplicationFactor(), Map.of());
            log.info(
                    "Auto-created topic {} ({} partitions, replication factor {}) at metadata version {}",
                    name,
                    config.defaultPartitions(),
                    config.defaultReplicationFactor(),
                    write.version());
            return Errors.LEADER_NOT_AVAILABLE;
        } catch (ControlPlaneException e) {
            if (e.kind() == ControlPlaneException.Kind.TOPIC_EXISTS || ControlPlaneErrors.isRetriable(e)) {
                return Errors.LEADER_NOT_AVAILABLE;
            }
            log.warn("Auto-creating topic {} failed: {}", name, e.getMessage());
            return ControlPlaneErrors.toApiError(e).error();
        }
    }

    private static MetadataResponseTopic error(String name, Uuid id, Errors error) {
        return new MetadataResponseTopic()
                .setName(name)
                .setTopicId(id)
                .setErrorCode(error.code())
                .setIsInternal(false);
    }

    /**
     * Which brokers count as alive for a request.
     *
     * @param alive registered and unfenced (on the internal listener, which every broker has)
     * @param onListener alive and with an endpoint on the request's listener
     * @param version the request's version
     */
    record Liveness(Set<Integer> alive, Set<Integer> onListener, short version) {}

    static MetadataResponseTopic describe(TopicInfo topic, Liveness alive, OptionalInt topicOperations) {
        var result = new MetadataResponseTopic()
                .setName(topic.name())
                .setTopicId(topic.id())
                .setErrorCode(Errors.NONE.code())
                .setIsInternal(false);
        for (PartitionInfo p : topic.partitions()) {
            result.partitions().add(describe(p, alive));
        }
        topicOperations.ifPresent(result::setTopicAuthorizedOperations);
        return result;
    }

    private static MetadataResponsePartition describe(PartitionInfo p, Liveness alive) {
        boolean leaderAlive = p.hasLeader() && alive.alive().contains(p.leader());
        boolean leaderReachable = leaderAlive && alive.onListener().contains(p.leader());
        Errors error;
        if (leaderReachable) {
            error = Errors.NONE;
        } else if (leaderAlive && alive.version() >= 6) {
            error = Errors.LISTENER_NOT_FOUND;
        } else {
            error = Errors.LEADER_NOT_AVAILABLE;
        }
        List<Integer> offline =
                p.replicas().stream().filter(r -> !alive.alive().contains(r)).toList();
        return new MetadataResponsePartition()
                .setPartitionIndex(p.partition())
                .setErrorCode(error.code())
                .setLeaderId(leaderReachable ? p.leader() : ClusterViews.NO_NODE)
                .setLeaderEpoch(p.leaderEpoch())
                .setReplicaNodes(new ArrayList<>(p.replicas()))
                .setIsrNodes(new ArrayList<>(p.isr()))
                .setOfflineReplicas(new ArrayList<>(offline));
    }
}
