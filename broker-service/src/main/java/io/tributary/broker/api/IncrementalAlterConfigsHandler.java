package io.tributary.broker.api;

import io.tributary.broker.api.TopicConfigWriter.Refusal;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.log.TopicConfigCatalog;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;

/**
 * IncrementalAlterConfigs (API key 44), versions 0 and 1: topic configs, forwarded to the coordinators'
 * control plane ({@link ControlPlane#alterConfigs}).
 *
 * <p>Per topic: SET validates and sets a value ({@link TopicConfigCatalog}: INVALID_CONFIG for an
 * unknown key or a bad value); DELETE removes the override (the default applies again); APPEND and
 * SUBTRACT add or remove members of a list config ({@code cleanup.policy}), starting from its
 * effective value, and are INVALID_CONFIG on any other config, as in Kafka. A key given twice, or a
 * resource given twice, is INVALID_REQUEST; an illegal topic name INVALID_TOPIC_EXCEPTION; an unknown
 * topic UNKNOWN_TOPIC_OR_PARTITION. Broker configs are read-only (INVALID_REQUEST saying so), other
 * resource types INVALID_REQUEST. {@code validate_only} stops after validating. A written change is
 * waited for (at most {@link AdminApiConfig#maxMetadataWait()}, the request has no timeout) so that
 * the client's next DescribeConfigs sees it; REQUEST_TIMED_OUT when it was not seen in time.
 *
 * <p>Authorization (with an authorizer), after the duplicate-resource check and before anything
 * else of the resource: ALTER_CONFIGS on the topic (TOPIC_AUTHORIZATION_FAILED), on the group
 * (GROUP_AUTHORIZATION_FAILED), on the cluster for broker resources (CLUSTER_AUTHORIZATION_FAILED),
 * as Kafka's controller checks it ({@link ConfigAccess}).
 *
 * <p>Thread-safety: stateless.
 */
public final class IncrementalAlterConfigsHandler implements RequestHandler {

    private final TopicConfigWriter writer;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public IncrementalAlterConfigsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        this(metadata, controlPlane, config, AccessControl.OPEN);
    }

    /** @param acls who may alter which resource's configs: ALTER_CONFIGS ({@link ConfigAccess}) */
    public IncrementalAlterConfigsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl acls) {
        this.writer = new TopicConfigWriter(metadata, controlPlane, config, acls);
    }

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                ApiKeys.INCREMENTAL_ALTER_CONFIGS.oldestVersion(),
                ApiKeys.INCREMENTAL_ALTER_CONFIGS.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        IncrementalAlterConfigsRequestData data =
                request.body(IncrementalAlterConfigsRequest.class).data();
        List<AlterConfigsResourceResponse> responses = new ArrayList<>();
        for (TopicConfigWriter.Outcome outcome : writer.alterTopics(
                request.connection(),
                data.resources(),
                AlterConfigsResource::resourceType,
                AlterConfigsResource::resourceName,
                data.validateOnly(),
                (topic, resource) -> change(topic, resource.configs(), data.validateOnly()))) {
            var response = new AlterConfigsResourceResponse()
                    .setResourceType(outcome.resourceType())
                    .setResourceName(outcome.resourceName())
                    .setErrorCode(Errors.NONE.code());
            if (outcome.error() != null) {
                fail(response, outcome.error());
            }
            responses.add(response);
        }
        return new IncrementalAlterConfigsResponse(new IncrementalAlterConfigsResponseData().setResponses(responses));
    }

    private TopicConfigWriter.Change change(String topic, Collection<AlterableConfig> configs, boolean validateOnly)
            throws Refusal {
        Set<String> seen = new LinkedHashSet<>();
        boolean needsCurrent = validateOnly;
        for (AlterableConfig c : configs) {
            if (!seen.add(c.name())) {
                throw new Refusal(Errors.INVALID_REQUEST, "config '" + c.name() + "' given more than once");
            }
            AlterConfigOp.OpType op = opType(c.configOperation());
            needsCurrent |= op == AlterConfigOp.OpType.APPEND || op == AlterConfigOp.OpType.SUBTRACT;
        }
        // Only APPEND, SUBTRACT and validate_only need the topic as this broker sees it; plain writes go
        // to the coordinators, which know a topic this broker's image may not have yet.
        Map<String, String> current = needsCurrent ? writer.currentOverrides(topic) : Map.of();

        Map<String, String> set = new TreeMap<>();
        Set<String> remove = new TreeSet<>();
        for (AlterableConfig c : configs) {
            TopicConfigCatalog.Definition definition = TopicConfigWriter.definition(c.name());
            AlterConfigOp.OpType op = opType(c.configOperation());
            switch (op) {
                case SET -> {
                    if (c.value() == null) {
                        throw new Refusal(Errors.INVALID_CONFIG, "null value not supported for config " + c.name());
                    }
                    set.put(c.name(), c.value());
                }
                case DELETE -> remove.add(c.name());
                case APPEND, SUBTRACT -> {
                    if (!definition.isList()) {
                        throw new Refusal(
                                Errors.INVALID_CONFIG,
                                "config value %s is not allowed for config key: %s (not a list)"
                                        .formatted(op.name().toLowerCase(java.util.Locale.ROOT), c.name()));
                    }
                    set.put(c.name(), listChange(writer.defaults().effectiveValue(current, c.name()), c.value(), op));
                }
            }
        }
        return new TopicConfigWriter.Change(TopicConfigWriter.validate(set), remove);
    }

    private static String listChange(String current, String value, AlterConfigOp.OpType op) {
        Set<String> members = new LinkedHashSet<>(split(current));
        List<String> given = value == null ? List.of() : split(value);
        if (op == AlterConfigOp.OpType.APPEND) {
            members.addAll(given);
        } else {
            given.forEach(members::remove);
        }
        return String.join(",", members);
    }

    private static List<String> split(String list) {
        return Arrays.stream(list.split(","))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .toList();
    }

    private static AlterConfigOp.OpType opType(byte id) throws Refusal {
        AlterConfigOp.OpType op = AlterConfigOp.OpType.forId(id);
        if (op == null) {
            throw new Refusal(Errors.INVALID_REQUEST, "unknown config operation " + id);
        }
        return op;
    }

    private static void fail(AlterConfigsResourceResponse response, ApiError error) {
        response.setErrorCode(error.error().code()).setErrorMessage(error.message());
    }
}
