package io.tributary.broker.api;

import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.log.TopicConfigCatalog;
import io.tributary.broker.log.TopicConfigDefaults;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.topic.UnsupportedTopicConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What IncrementalAlterConfigs and AlterConfigs share: the per-resource loop ({@link #alterTopics}),
 * the answer for resources other than topics, validating a topic's new overrides, the control-plane
 * write, and waiting for its version.
 *
 * <p>Thread-safety: stateless.
 */
final class TopicConfigWriter {

    private static final Logger log = LoggerFactory.getLogger(TopicConfigWriter.class);

    private final MetadataView metadata;
    private final ControlPlane controlPlane;
    private final AdminApiConfig config;
    private final ConfigAccess access;

    /** @param acls who may alter which resource's configs ({@link ConfigAccess}, ALTER_CONFIGS) */
    TopicConfigWriter(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl acls) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.config = Objects.requireNonNull(config, "config");
        this.access = new ConfigAccess(acls);
    }

    /** A config change the handlers refuse before anything is written. */
    static final class Refusal extends Exception {
        final transient ApiError error;

        Refusal(Errors error, String message) {
            this(new ApiError(error, message));
        }

        Refusal(ApiError error) {
            super(error.message(), null, false, false);
            this.error = error;
        }
    }

    /** The overrides one topic resource asks to set (validated, normalized) and to remove. */
    record Change(SortedMap<String, String> set, Collection<String> remove) {}

    /** How a request turns one topic resource into its {@link Change}; refuses with {@link Refusal}. */
    @FunctionalInterface
    interface ChangeOf<R> {
        Change of(String topic, R resource) throws Refusal;
    }

    /** One resource's answer: its type id and name as given, and its error (null when none). */
    record Outcome(byte resourceType, String resourceName, ApiError error) {}

    /**
     * The loop both requests run over their resources, answering each (type, name) once, in the
     * order given: a resource given more than once is INVALID_REQUEST; one the caller may not
     * ALTER_CONFIGS is refused with its type's authorization error ({@link ConfigAccess}, as Kafka's
     * controller does before it validates anything of the resource); one that is not a topic is
     * refused ({@link #notATopic}); an illegal topic name INVALID_TOPIC_EXCEPTION; then {@code
     * changeOf} computes the change, which is written unless {@code validateOnly}. After all writes,
     * each written topic waits for its version ({@link #awaitVersion}); one not reached is {@link
     * #notYetVisible}.
     */
    <R> List<Outcome> alterTopics(
            ConnectionInfo caller,
            Collection<R> resources,
            Function<R, Byte> typeOf,
            Function<R, String> nameOf,
            boolean validateOnly,
            ChangeOf<R> changeOf) {
        Map<List<Object>, Integer> occurrences = new HashMap<>();
        resources.forEach(r -> occurrences.merge(List.of(typeOf.apply(r), nameOf.apply(r)), 1, Integer::sum));

        List<Outcome> outcomes = new ArrayList<>();
        Map<Integer, Long> writtenAt = new LinkedHashMap<>();
        Set<List<Object>> answered = new HashSet<>();
        for (R resource : resources) {
            byte typeId = typeOf.apply(resource);
            String name = nameOf.apply(resource);
            List<Object> key = List.of(typeId, name);
            if (!answered.add(key)) {
                continue;
            }
            ApiError error = null;
            try {
                if (occurrences.get(key) > 1) {
                    throw new Refusal(Errors.INVALID_REQUEST, "resource given more than once");
                }
                Optional<ApiError> refused = access.refusal(caller, AclOperation.ALTER_CONFIGS, typeId, name);
                if (refused.isPresent()) {
                    throw new Refusal(refused.get());
                }
                ConfigResource.Type type = ConfigResource.Type.forId(typeId);
                if (type != ConfigResource.Type.TOPIC) {
                    throw new Refusal(notATopic(type));
                }
                checkName(name);
                Change change = changeOf.of(name, resource);
                if (!validateOnly) {
                    writtenAt.put(outcomes.size(), write(name, change.set(), change.remove()));
                }
            } catch (Refusal refusal) {
                error = refusal.error;
            }
            outcomes.add(new Outcome(typeId, name, error));
        }
        writtenAt.forEach((index, version) -> {
            if (!awaitVersion(version)) {
                Outcome written = outcomes.get(index);
                outcomes.set(
                        index,
                        new Outcome(
                                written.resourceType(),
                                written.resourceName(),
                                notYetVisible(written.resourceName(), version)));
            }
        });
        return outcomes;
    }

    /** The error for altering a resource that is not a topic. */
    static ApiError notATopic(ConfigResource.Type type) {
        if (type == ConfigResource.Type.BROKER || type == ConfigResource.Type.BROKER_LOGGER) {
            return new ApiError(
                    Errors.INVALID_REQUEST,
                    "broker configs are read-only: a Tributary broker is configured by its tributary.broker.*"
                            + " properties at start");
        }
        return new ApiError(
                Errors.INVALID_REQUEST, "altering configs of resource type " + type + " is not supported; TOPIC is");
    }

    /** Refuses an illegal topic name. */
    static void checkName(String topic) throws Refusal {
        var invalid = ClusterViews.invalidTopicName(topic);
        if (invalid.isPresent()) {
            throw new Refusal(Errors.INVALID_TOPIC_EXCEPTION, invalid.get().message());
        }
    }

    /** The topic's overrides in this broker's image; UNKNOWN_TOPIC_OR_PARTITION when it has none such. */
    Map<String, String> currentOverrides(String topic) throws Refusal {
        return metadata.image()
                .topic(topic)
                .map(t -> t.configs())
                .orElseThrow(() -> new Refusal(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no topic named '" + topic + "'"));
    }

    /** Validates and normalizes overrides to set; INVALID_CONFIG naming the key. */
    static SortedMap<String, String> validate(Map<String, String> set) throws Refusal {
        try {
            return TopicConfigCatalog.validate(set);
        } catch (InvalidConfigurationException e) {
            throw new Refusal(Errors.INVALID_CONFIG, e.getMessage());
        }
    }

    /** Refuses a key the catalog does not know. */
    static TopicConfigCatalog.Definition definition(String key) throws Refusal {
        return TopicConfigCatalog.definition(key)
                .orElseThrow(() -> new Refusal(
                        Errors.INVALID_CONFIG,
                        UnsupportedTopicConfigs.refusal(key).getMessage()));
    }

    /** This broker's topic-config defaults. */
    TopicConfigDefaults defaults() {
        return config.topicDefaults();
    }

    /** Writes the change through the control plane; returns the committed version. */
    long write(String topic, Map<String, String> set, Collection<String> remove) throws Refusal {
        try {
            long version = controlPlane.alterConfigs(topic, set, remove).version();
            log.info(
                    "Altered configs of topic {} (set {}, removed {}) at metadata version {}",
                    topic,
                    set,
                    remove,
                    version);
            return version;
        } catch (ControlPlaneException e) {
            throw new Refusal(ControlPlaneErrors.toApiError(e));
        }
    }

    /** Waits for {@code version}; true when this broker's image reached it in time. */
    boolean awaitVersion(long version) {
        Duration budget = config.maxMetadataWait();
        return ClusterViews.awaitVersion(metadata, version, budget);
    }

    /** REQUEST_TIMED_OUT for a write this broker's image has not reached yet. */
    ApiError notYetVisible(String topic, long version) {
        return new ApiError(
                Errors.REQUEST_TIMED_OUT,
                "configs of '%s' were altered at metadata version %d, which this broker has not reached within %d ms"
                        .formatted(topic, version, config.maxMetadataWait().toMillis()));
    }
}
