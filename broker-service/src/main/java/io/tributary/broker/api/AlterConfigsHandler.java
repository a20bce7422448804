package io.tributary.broker.api;

import io.tributary.broker.api.TopicConfigWriter.Refusal;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigResource;
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
import org.apache.kafka.common.requests.ApiError;

/**
 * AlterConfigs (API key 33), versions 0 to 2: the legacy, non-incremental form. A topic's overrides
 * become exactly the configs given: each is validated and set, every current override not given is
 * removed. Errors, {@code validate_only} and waiting are as in {@link IncrementalAlterConfigsHandler}.
 *
 * <p>Thread-safety: stateless.
 */
public final class AlterConfigsHandler implements RequestHandler {

    private final TopicConfigWriter writer;

    public AlterConfigsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        this.writer = new TopicConfigWriter(metadata, controlPlane, config);
    }

    @Override
    public ApiVersionRange versions() {
        return new ApiVersionRange(
                ApiKeys.ALTER_CONFIGS, ApiKeys.ALTER_CONFIGS.oldestVersion(), ApiKeys.ALTER_CONFIGS.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        AlterConfigsRequestData data = request.body(AlterConfigsRequest.class).data();
        Map<List<Object>, Integer> occurrences = new HashMap<>();
        data.resources().forEach(r -> occurrences.merge(List.of(r.resourceType(), r.resourceName()), 1, Integer::sum));

        List<AlterConfigsResourceResponse> responses = new ArrayList<>();
        Map<AlterConfigsResourceResponse, Long> writtenAt = new IdentityHashMap<>();
        Set<List<Object>> answered = new LinkedHashSet<>();
        for (AlterConfigsResource resource : data.resources()) {
            List<Object> key = List.of(resource.resourceType(), resource.resourceName());
            if (!answered.add(key)) {
                continue;
            }
            var response = new AlterConfigsResourceResponse()
                    .setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName())
                    .setErrorCode(Errors.NONE.code());
            responses.add(response);
            try {
                if (occurrences.get(key) > 1) {
                    throw new Refusal(Errors.INVALID_REQUEST, "resource given more than once");
                }
                ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
                if (type != ConfigResource.Type.TOPIC) {
                    throw new Refusal(TopicConfigWriter.notATopic(type));
                }
                String topic = resource.resourceName();
                TopicConfigWriter.checkName(topic);
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
                Set<String> remove =
                        new TreeSet<>(writer.currentOverrides(topic).keySet());
                remove.removeAll(set.keySet());
                if (!data.validateOnly()) {
                    writtenAt.put(response, writer.write(topic, set, remove));
                }
            } catch (Refusal refusal) {
                response.setErrorCode(refusal.error.error().code()).setErrorMessage(refusal.error.message());
            }
        }
        writtenAt.forEach((response, version) -> {
            if (!writer.awaitVersion(version)) {
                ApiError error = writer.notYetVisible(response.resourceName(), version);
                response.setErrorCode(error.error().code()).setErrorMessage(error.message());
            }
        });
        return new AlterConfigsResponse(new AlterConfigsResponseData().setResponses(responses));
    }
}
