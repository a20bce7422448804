package io.tributary.broker.api;

import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.TopicConfigCatalog;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * DescribeConfigs (API key 32), versions 1 to 4, from this broker's image and {@link
 * TopicConfigCatalog}.
 *
 * <ul>
 *   <li>TOPIC: every config of the catalog with its effective value; source TOPIC_CONFIG when the
 *       topic sets it, otherwise DEFAULT_CONFIG for Kafka's default or STATIC_BROKER_CONFIG for one
 *       the broker's settings change ({@link AdminApiConfig#topicDefaults()}); not read-only, not sensitive; with {@code
 *       include_synonyms} the topic override (if any) then the broker default under its Kafka broker
 *       name ({@code log.retention.ms}...); with {@code include_documentation} (v3+) one sentence
 *       each; the config type from v3. An illegal name is INVALID_TOPIC_EXCEPTION, a topic this broker
 *       does not know UNKNOWN_TOPIC_OR_PARTITION.
 *   <li>BROKER (this broker's id, or empty for the cluster default): the broker-side defaults of the
 *       topic configs under their broker names, and the broker settings clients ask about ({@code
 *       num.partitions}, {@code default.replication.factor}, {@code auto.create.topics.enable}, {@code
 *       node.id}), all read-only (Tributary's broker configuration is its properties file). Another
 *       broker's id, or a name that is not an id, is INVALID_REQUEST.
 *   <li>Other resource types: INVALID_REQUEST.
 * </ul>
 *
 * <p>Authorization (with an authorizer), as Kafka's {@code ConfigHelper}: DESCRIBE_CONFIGS on the
 * topic, the group, or the cluster for broker resources ({@link ConfigAccess}); a refused resource is
 * answered its type's authorization error with no configs, after the resources described (in the
 * order asked among each), also for a topic that does not exist.
 *
 * <p>A non-null {@code configuration_keys} list keeps only those keys (unknown keys are left out, as
 * Kafka does).
 *
 * <p>Thread-safety: stateless.
 */
public final class DescribeConfigsHandler implements RequestHandler {

    private final MetadataView metadata;
    private final AdminApiConfig config;
    private final ConfigAccess access;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public DescribeConfigsHandler(MetadataView metadata, AdminApiConfig config) {
        this(metadata, config, AccessControl.OPEN);
    }

    /** @param acls who may describe which resource's configs: DESCRIBE_CONFIGS ({@link ConfigAccess}) */
    public DescribeConfigsHandler(MetadataView metadata, AdminApiConfig config, AccessControl acls) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.config = Objects.requireNonNull(config, "config");
        this.access = new ConfigAccess(acls);
    }

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.DESCRIBE_CONFIGS,
                ApiKeys.DESCRIBE_CONFIGS.oldestVersion(),
                ApiKeys.DESCRIBE_CONFIGS.latestVersion());
    }

    /** One described config, whichever the resource. */
    private record Described(
            String name,
            String value,
            ConfigSource source,
            boolean readOnly,
            ConfigType type,
            String documentation,
            List<DescribeConfigsSynonym> synonyms) {}

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        DescribeConfigsRequestData data =
                request.body(DescribeConfigsRequest.class).data();
        short version = request.header().apiVersion();
        boolean synonyms = data.includeSynonyms();
        boolean documentation = version >= 3 && data.includeDocumentation();
        var response = new DescribeConfigsResponseData();
        List<DescribeConfigsResult> refused = new ArrayList<>();
        for (DescribeConfigsResource resource : data.resources()) {
            var result = new DescribeConfigsResult()
                    .setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName())
                    .setErrorCode(Errors.NONE.code());
            Optional<ApiError> denied = access.refusal(
                    request.connection(),
                    AclOperation.DESCRIBE_CONFIGS,
                    resource.resourceType(),
                    resource.resourceName());
            if (denied.isPresent()) {
                refused.add(result.setErrorCode(denied.get().error().code())
                        .setErrorMessage(denied.get().message()));
                continue;
            }
            response.results().add(result);
            ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
            List<Described> described;
            try {
                described = switch (type) {
                    case TOPIC -> topic(resource.resourceName());
                    case BROKER -> broker(resource.resourceName());
                    default ->
                        throw new Refusal(new ApiError(
                                Errors.INVALID_REQUEST,
                                "describing configs of resource type " + type + " is not supported; TOPIC and BROKER"
                                        + " are"));
                };
            } catch (Refusal refusal) {
                result.setErrorCode(refusal.error.error().code()).setErrorMessage(refusal.error.message());
                continue;
            }
            for (Described d : described) {
                if (resource.configurationKeys() != null
                        && !resource.configurationKeys().contains(d.name())) {
                    continue;
                }
                result.configs()
                        .add(new DescribeConfigsResourceResult()
                                .setName(d.name())
                                .setValue(d.value())
                                .setReadOnly(d.readOnly())
                                .setConfigSource(d.source().id())
                                .setIsSensitive(false)
                                .setConfigType(d.type().id())
                                .setDocumentation(documentation ? d.documentation() : null)
                                .setSynonyms(synonyms ? d.synonyms() : new ArrayList<>()));
            }
        }
        response.results().addAll(refused);
        return new DescribeConfigsResponse(response);
    }

    private List<Described> topic(String name) throws Refusal {
        Optional<ApiError> invalid = ClusterViews.invalidTopicName(name);
        if (invalid.isPresent()) {
            throw new Refusal(invalid.get());
        }
        TopicInfo topic = metadata.image()
                .topic(name)
                .orElseThrow(() ->
                        new Refusal(new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no topic named '" + name + "'")));
        List<Described> described = new ArrayList<>();
        for (TopicConfigEntries.Entry entry : TopicConfigEntries.of(topic.configs(), config.topicDefaults())) {
            TopicConfigCatalog.Definition d = entry.definition();
            List<DescribeConfigsSynonym> synonyms = new ArrayList<>();
            if (entry.isOverride()) {
                synonyms.add(synonym(d.name(), entry.value(), ConfigSource.TOPIC_CONFIG));
            }
            d.brokerSynonym()
                    .ifPresent(broker -> synonyms.add(synonym(
                            broker,
                            config.topicDefaults().value(d.name()),
                            TopicConfigEntries.defaultSource(config.topicDefaults(), d.name()))));
            described.add(new Described(
                    d.name(), entry.value(), entry.source(), false, d.type(), d.documentation(), synonyms));
        }
        return described;
    }

    private List<Described> broker(String name) throws Refusal {
        int self = metadata.brokerId();
        if (!name.isEmpty() && !name.equals(Integer.toString(self))) {
            throw new Refusal(new ApiError(
                    Errors.INVALID_REQUEST,
                    "broker %d describes its own configs (resource name \"%d\" or \"\"), not \"%s\""
                            .formatted(self, self, name)));
        }
        List<Described> described = new ArrayList<>();
        for (TopicConfigCatalog.Definition d : TopicConfigCatalog.all()) {
            d.brokerSynonym()
                    .ifPresent(broker -> described.add(brokerConfig(
                            broker,
                            config.topicDefaults().value(d.name()),
                            TopicConfigEntries.defaultSource(config.topicDefaults(), d.name()),
                            d.type(),
                            "The default of topic config " + d.name() + ": " + d.documentation())));
        }
        described.add(brokerConfig(
                "num.partitions",
                Integer.toString(config.defaultPartitions()),
                ConfigSource.STATIC_BROKER_CONFIG,
                ConfigType.INT,
                "Partitions of a topic created without a count (tributary.broker.admin.default-partitions)."));
        described.add(brokerConfig(
                "default.replication.factor",
                Short.toString(config.defaultReplicationFactor()),
                ConfigSource.STATIC_BROKER_CONFIG,
                ConfigType.INT,
                "Replicas of a topic created without a replication factor"
                        + " (tributary.broker.admin.default-replication-factor)."));
        described.add(brokerConfig(
                "auto.create.topics.enable",
                Boolean.toString(config.autoCreateEnabled()),
                ConfigSource.STATIC_BROKER_CONFIG,
                ConfigType.BOOLEAN,
                "Whether Metadata creates missing topics (tributary.broker.admin.auto-create-topics)."));
        described.add(brokerConfig(
                "node.id",
                Integer.toString(self),
                ConfigSource.STATIC_BROKER_CONFIG,
                ConfigType.INT,
                "This broker's id (tributary.broker.id)."));
        described.sort(java.util.Comparator.comparing(Described::name));
        return described;
    }

    private static Described brokerConfig(
            String name, String value, ConfigSource source, ConfigType type, String documentation) {
        return new Described(
                name, value, source, true, type, documentation, new ArrayList<>(List.of(synonym(name, value, source))));
    }

    private static DescribeConfigsSynonym synonym(String name, String value, ConfigSource source) {
        return new DescribeConfigsSynonym().setName(name).setValue(value).setSource(source.id());
    }

    /** A resource that is answered with an error instead of configs. */
    private static final class Refusal extends Exception {
        private final transient ApiError error;

        Refusal(ApiError error) {
            super(error.message(), null, false, false);
            this.error = error;
        }
    }
}
