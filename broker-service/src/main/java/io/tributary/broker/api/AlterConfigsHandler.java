package io.tributary.broker.api;

import io.tributary.broker.api.TopicConfigWriter.Refusal;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;

/**
 * AlterConfigs (API key 33), versions 0 to 2: the legacy, non-incremental form. A topic's overrides
 * become exactly the configs given: each is validated and set, every current override not given is
 * removed. Errors, {@code validate_only} and waiting are as in {@link IncrementalAlterConfigsHandler}.
 *
 * <p>Thread-safety: stateless.
 */
public final class AlterConfigsHandler implements RequestHandler {

    private final TopicConfigWriter writer;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public AlterConfigsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        this(metadata, controlPlane, config, AccessControl.OPEN);
    }

    /** @param acls who may alter which resource's configs: ALTER_CONFIGS ({@link ConfigAccess}) */
    public AlterConfigsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl acls) {
        this.writer = new TopicConfigWriter(metadata, controlPlane, config, acls);
    }

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.ALTER_CONFIGS, ApiKeys.ALTER_CONFIGS.oldestVersion(), ApiKeys.ALTER_CONFIGS.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        AlterConfigsRequestData data = request.body(AlterConfigsRequest.class).data();
        List<AlterConfigsResourceResponse> responses = new ArrayList<>();
        for (TopicConfigWriter.Outcome outcome : writer.alterTopics(
                request.connection(),
                data.resources(),
                AlterConfigsResource::resourceType,
                AlterConfigsResource::resourceName,
                data.validateOnly(),
                this::change)) {
            var response = new AlterConfigsResourceResponse()
                    .setResourceType(outcome.resourceType())
                    .setResourceName(outcome.resourceName())
                    .setErrorCode(Errors.NONE.code());
            if (outcome.error() != null) {
                response.setErrorCode(outcome.error().error().code())
                        .setErrorMessage(outcome.error().message());
            }
            responses.add(response);
        }
        return new AlterConfigsResponse(new AlterConfigsResponseData().setResponses(responses));
    }

    /** The topic's overrides become exactly the configs given: the rest are removed. */
    private TopicConfigWriter.Change change(String topic, AlterConfigsResource resource) throws Refusal {
        Map<String, String> given = new HashMap<>();
        for (AlterableConfig c : resource.configs()) {
            TopicConfigWriter.definition(c.name());
            if (c.value() == null) {
                throw new Refusal(Errors.INVALID_CONFIG, "null value not supported for config " + c.name());
            }
            if (given.put(c.name(), c.value()) != null) {
                throw new Refusal(Errors.INVALID_REQUEST, "config '" + c.name() + "' given more than once");
            }
        }
        SortedMap<String, String> set = TopicConfigWriter.validate(given);
        Set<String> remove = new TreeSet<>(writer.currentOverrides(topic).keySet());
        remove.removeAll(set.keySet());
        return new TopicConfigWriter.Change(set, remove);
    }
}
