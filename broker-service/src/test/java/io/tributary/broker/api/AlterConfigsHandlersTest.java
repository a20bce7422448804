package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.cluster.ControlPlaneException.Kind;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** IncrementalAlterConfigs and the legacy AlterConfigs. */
class AlterConfigsHandlersTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(1);
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);
    private final IncrementalAlterConfigsHandler incremental =
            new IncrementalAlterConfigsHandler(metadata, controlPlane, AdminApiConfig.defaults());
    private final AlterConfigsHandler legacy =
            new AlterConfigsHandler(metadata, controlPlane, AdminApiConfig.defaults());

    @BeforeEach
    void createTopic() {
        controlPlane.createTopic("orders", 1, 1, Map.of("retention.ms", "1000", "segment.ms", "2000"));
    }

    private static AlterableConfig op(String name, OpType op, String value) {
        return new AlterableConfig().setName(name).setConfigOperation(op.id()).setValue(value);
    }

    private static AlterConfigsResource topic(String name, AlterableConfig... configs) {
        var resource = new AlterConfigsResource()
                .setResourceType(ConfigResource.Type.TOPIC.id())
                .setResourceName(name);
        for (AlterableConfig c : configs) {
            resource.configs().add(c);
        }
        return resource;
    }

    private IncrementalAlterConfigsResponse alter(
            int version, boolean validateOnly, AlterConfigsResource... resources) {
        var data = new IncrementalAlterConfigsRequestData().setValidateOnly(validateOnly);
        for (AlterConfigsResource r : resources) {
            data.resources().add(r);
        }
        return Wire.call(incremental, new IncrementalAlterConfigsRequest.Builder(data), version);
    }

    private Map<String, String> configs() {
        return controlPlane.image().topic("orders").orElseThrow().configs();
    }

    @ParameterizedTest(name = "v{0}")
    @ValueSource(ints = {0, 1})
    void setAndDeleteChangeTheTopicsOverridesAndTheChangeIsWaitedFor(int version) {
        IncrementalAlterConfigsResponse response = alter(
                version,
                false,
                topic("orders", op("retention.ms", OpType.SET, "86400000"), op("segment.ms", OpType.DELETE, null)));

        assertThat(response.data().responses().getFirst().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(configs()).containsOnly(Map.entry("retention.ms", "86400000"));
        assertThat(metadata.waits).hasSize(1);
    }

    @Test
    void appendAndSubtractWorkOnListConfigsFromTheirEffectiveValue() {
        alter(1, false, topic("orders", op("cleanup.policy", OpType.APPEND, "compact")));
        assertThat(configs()).containsEntry("cleanup.policy", "compact,delete");

        alter(1, false, topic("orders", op("cleanup.policy", OpType.SUBTRACT, "delete")));
        assertThat(configs()).containsEntry("cleanup.policy", "compact");
    }

    @Test
    void appendOnANonListConfigIsInvalidConfigAsInKafka() {
        IncrementalAlterConfigsResponse response =
                alter(1, false, topic("orders", op("retention.ms", OpType.APPEND, "5")));

        assertThat(response.data().responses().getFirst().errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(configs()).containsEntry("retention.ms", "1000");
    }

    @Test
    void subtractingEveryMemberOfCleanupPolicyLeavesNoPolicyAsKafka44Does() {
        IncrementalAlterConfigsResponse response =
                alter(1, false, topic("orders", op("cleanup.policy", OpType.SUBTRACT, "delete")));

        assertThat(response.data().responses().getFirst().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(configs()).containsEntry("cleanup.policy", "");
    }

    @Test
    void clientMistakesArePerResourceErrorsAndNothingIsWritten() {
        int writes = controlPlane.writes.get();
        var broker = new AlterConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER.id())
                .setResourceName("0");
        broker.configs().add(op("log.retention.ms", OpType.SET, "1"));

        IncrementalAlterConfigsResponse response = alter(
                1,
                false,
                topic("missing", op("retention.ms", OpType.SET, "1")),
                topic("bad name", op("retention.ms", OpType.SET, "1")),
                broker,
                topic("orders", op("retention.ms", OpType.SET, "-5")));
        IncrementalAlterConfigsResponse unknownKey =
                alter(1, false, topic("orders", op("preallocate", OpType.SET, "true")));
        IncrementalAlterConfigsResponse nullValue =
                alter(1, false, topic("orders", op("retention.ms", OpType.SET, null)));
        IncrementalAlterConfigsResponse twice = alter(
                1,
                false,
                topic("orders", op("retention.ms", OpType.SET, "5"), op("retention.ms", OpType.DELETE, null)));

        assertThat(response.data().responses())
                .extracting(AlterConfigsResourceResponse::resourceName, AlterConfigsResourceResponse::errorCode)
                .containsExactly(
                        tuple("missing", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                        tuple("bad name", Errors.INVALID_TOPIC_EXCEPTION.code()),
                        tuple("0", Errors.INVALID_REQUEST.code()),
                        tuple("orders", Errors.INVALID_CONFIG.code()));
        assertThat(response.data().responses().get(2).errorMessage()).contains("read-only");
        assertThat(unknownKey.data().responses().getFirst().errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(nullValue.data().responses().getFirst().errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(twice.data().responses().getFirst().errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(controlPlane.writes).hasValue(writes);
    }

    @Test
    void validateOnlyValidatesWithoutWriting() {
        int writes = controlPlane.writes.get();

        IncrementalAlterConfigsResponse ok = alter(1, true, topic("orders", op("retention.ms", OpType.SET, "5")));
        IncrementalAlterConfigsResponse bad = alter(1, true, topic("orders", op("retention.ms", OpType.SET, "soon")));

        assertThat(ok.data().responses().getFirst().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(bad.data().responses().getFirst().errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(controlPlane.writes).hasValue(writes);
    }

    @Test
    void aChangeThisBrokerDoesNotSeeInTimeIsRequestTimedOutAndAnUnreachableCoordinatorNotController() {
        metadata.freeze();
        IncrementalAlterConfigsResponse late = alter(1, false, topic("orders", op("retention.ms", OpType.SET, "5")));
        controlPlane.failNext(Kind.UNAVAILABLE, "no leader");
        IncrementalAlterConfigsResponse unavailable =
                alter(1, false, topic("orders", op("retention.ms", OpType.SET, "6")));

        assertThat(late.data().responses().getFirst().errorCode()).isEqualTo(Errors.REQUEST_TIMED_OUT.code());
        assertThat(unavailable.data().responses().getFirst().errorCode()).isEqualTo(Errors.NOT_CONTROLLER.code());
    }

    @Test
    void legacyAlterConfigsReplacesTheWholeSetOfOverrides() {
        var data = new AlterConfigsRequestData();
        var resource = new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(ConfigResource.Type.TOPIC.id())
                .setResourceName("orders");
        resource.configs()
                .add(new AlterConfigsRequestData.AlterableConfig()
                        .setName("max.message.bytes")
                        .setValue("2048"));
        data.resources().add(resource);

        AlterConfigsResponse response = Wire.call(legacy, (AbstractRequest) new AlterConfigsRequest(data, (short) 2));

        assertThat(response.data().responses().getFirst().errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(configs()).containsOnly(Map.entry("max.message.bytes", "2048"));
    }

    @Test
    void legacyAlterConfigsValidatesEveryValue() {
        var data = new AlterConfigsRequestData();
        var resource = new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(ConfigResource.Type.TOPIC.id())
                .setResourceName("orders");
        resource.configs()
                .add(new AlterConfigsRequestData.AlterableConfig()
                        .setName("min.insync.replicas")
                        .setValue("0"));
        data.resources().add(resource);

        AlterConfigsResponse response = Wire.call(legacy, (AbstractRequest) new AlterConfigsRequest(data, (short) 2));

        assertThat(response.data().responses().getFirst().errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(configs()).containsKeys("retention.ms", "segment.ms");
        assertThat(List.copyOf(configs().keySet())).hasSize(2);
    }
}
