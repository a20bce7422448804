package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.TopicConfigCatalog;
import io.tributary.broker.log.TopicConfigDefaults;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DescribeConfigsHandlerTest {

    private final DescribeConfigsHandler handler =
            new DescribeConfigsHandler(FakeMetadataView.fixed(TestImages.cluster(), 1), AdminApiConfig.defaults());

    static IntStream allVersions() {
        return IntStream.rangeClosed(
                ApiKeys.DESCRIBE_CONFIGS.oldestVersion(), ApiKeys.DESCRIBE_CONFIGS.latestVersion());
    }

    private static DescribeConfigsResource resource(ConfigResource.Type type, String name, List<String> keys) {
        return new DescribeConfigsResource()
                .setResourceType(type.id())
                .setResourceName(name)
                .setConfigurationKeys(keys);
    }

    private DescribeConfigsResponse describe(
            int version, boolean synonyms, boolean docs, DescribeConfigsResource... r) {
        var data = new DescribeConfigsRequestData()
                .setResources(List.of(r))
                .setIncludeSynonyms(synonyms)
                .setIncludeDocumentation(docs);
        return Wire.call(handler, new DescribeConfigsRequest.Builder(data), version);
    }

    @ParameterizedTest(name = "v{0}")
    @MethodSource("allVersions")
    void aTopicHasEveryKnownConfigWithItsValueAndWhetherTheTopicSetsIt(int version) {
        DescribeConfigsResponse response =
                describe(version, false, false, resource(ConfigResource.Type.TOPIC, "events", null));

        DescribeConfigsResult result = response.data().results().getFirst();
        assertThat(result.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(result.configs())
                .extracting(DescribeConfigsResourceResult::name)
                .containsExactlyElementsOf(TopicConfigCatalog.names());
        assertThat(result.configs())
                .filteredOn(c -> c.name().equals("retention.ms") || c.name().equals("max.message.bytes"))
                .extracting(
                        DescribeConfigsResourceResult::name,
                        DescribeConfigsResourceResult::value,
                        DescribeConfigsResourceResult::configSource,
                        DescribeConfigsResourceResult::readOnly,
                        DescribeConfigsResourceResult::isSensitive)
                .containsExactly(
                        tuple("max.message.bytes", "1048588", ConfigSource.DEFAULT_CONFIG.id(), false, false),
                        tuple("retention.ms", "3600000", ConfigSource.TOPIC_CONFIG.id(), false, false));
        if (version >= 3) {
            assertThat(result.configs())
                    .filteredOn(c -> c.name().equals("cleanup.policy"))
                    .extracting(DescribeConfigsResourceResult::configType)
                    .containsExactly(ConfigType.LIST.id());
        }
    }

    @Test
    void synonymsNameTheTopicOverrideAndThenTheBrokerDefault() {
        DescribeConfigsResponse response = describe(
                4, true, false, resource(ConfigResource.Type.TOPIC, "events", List.of("retention.ms", "segment.ms")));

        List<DescribeConfigsResourceResult> configs =
                response.data().results().getFirst().configs();
        assertThat(configs)
                .extracting(DescribeConfigsResourceResult::name)
                .containsExactly("retention.ms", "segment.ms");
        assertThat(configs.get(0).synonyms())
                .extracting(DescribeConfigsSynonym::name, DescribeConfigsSynonym::value, DescribeConfigsSynonym::source)
                .containsExactly(
                        tuple("retention.ms", "3600000", ConfigSource.TOPIC_CONFIG.id()),
                        tuple("log.retention.ms", "604800000", ConfigSource.DEFAULT_CONFIG.id()));
        assertThat(configs.get(1).synonyms())
                .extracting(DescribeConfigsSynonym::name)
                .containsExactly("log.roll.ms");
    }

    @Test
    void aDefaultTheBrokersSettingsChangeIsStaticBrokerConfigWithTheBrokersValue() {
        var defaults = TopicConfigDefaults.of(LogConfig.defaults().withSegmentTime(Duration.ofHours(1)), 1);
        var config = new AdminApiConfig(
                "c", 1, (short) 1, AdminApiConfig.AutoCreateTopics.DISABLED, 10, Duration.ofSeconds(1), defaults);
        var ownDefaults = new DescribeConfigsHandler(FakeMetadataView.fixed(TestImages.cluster(), 1), config);

        DescribeConfigsResponse topic = Wire.call(
                ownDefaults,
                new DescribeConfigsRequest.Builder(new DescribeConfigsRequestData()
                        .setIncludeSynonyms(true)
                        .setResources(List.of(resource(ConfigResource.Type.TOPIC, "events", List.of("segment.ms"))))),
                4);
        DescribeConfigsResponse broker = Wire.call(
                ownDefaults,
                new DescribeConfigsRequest.Builder(new DescribeConfigsRequestData()
                        .setResources(List.of(resource(ConfigResource.Type.BROKER, "1", List.of("log.roll.ms"))))),
                4);

        DescribeConfigsResourceResult segmentMs =
                topic.data().results().getFirst().configs().getFirst();
        assertThat(segmentMs.value()).isEqualTo("3600000");
        assertThat(segmentMs.configSource()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG.id());
        assertThat(segmentMs.synonyms())
                .extracting(DescribeConfigsSynonym::name, DescribeConfigsSynonym::value, DescribeConfigsSynonym::source)
                .containsExactly(tuple("log.roll.ms", "3600000", ConfigSource.STATIC_BROKER_CONFIG.id()));
        assertThat(broker.data().results().getFirst().configs())
                .extracting(DescribeConfigsResourceResult::name, DescribeConfigsResourceResult::value)
                .containsExactly(tuple("log.roll.ms", "3600000"));
    }

    @Test
    void theTimestampBoundsAreDescribedWithKafka4sDefaultsAndBrokerSynonyms() {
        List<String> keys = List.of("message.timestamp.after.max.ms", "message.timestamp.before.max.ms");

        DescribeConfigsResponse topic = describe(4, true, false, resource(ConfigResource.Type.TOPIC, "events", keys));
        DescribeConfigsResponse broker = describe(
                4,
                false,
                false,
                resource(
                        ConfigResource.Type.BROKER,
                        "1",
                        List.of("log.message.timestamp.after.max.ms", "log.message.timestamp.before.max.ms")));

        List<DescribeConfigsResourceResult> configs =
                topic.data().results().getFirst().configs();
        assertThat(configs)
                .extracting(
                        DescribeConfigsResourceResult::name,
                        DescribeConfigsResourceResult::value,
                        DescribeConfigsResourceResult::configSource,
                        DescribeConfigsResourceResult::configType)
                .containsExactly(
                        tuple(keys.get(0), "3600000", ConfigSource.DEFAULT_CONFIG.id(), ConfigType.LONG.id()),
                        tuple(
                                keys.get(1),
                                Long.toString(Long.MAX_VALUE),
                                ConfigSource.DEFAULT_CONFIG.id(),
                                ConfigType.LONG.id()));
        assertThat(configs)
                .flatExtracting(DescribeConfigsResourceResult::synonyms)
                .extracting(DescribeConfigsSynonym::name)
                .containsExactly("log.message.timestamp.after.max.ms", "log.message.timestamp.before.max.ms");
        assertThat(broker.data().results().getFirst().configs())
                .extracting(DescribeConfigsResourceResult::name, DescribeConfigsResourceResult::value)
                .containsExactly(
                        tuple("log.message.timestamp.after.max.ms", "3600000"),
                        tuple("log.message.timestamp.before.max.ms", Long.toString(Long.MAX_VALUE)));
    }

    @Test
    void documentationOnlyWhenAskedFor() {
        var withDocs = describe(4, false, true, resource(ConfigResource.Type.TOPIC, "events", List.of("flush.ms")));
        var withoutDocs = describe(4, false, false, resource(ConfigResource.Type.TOPIC, "events", List.of("flush.ms")));

        assertThat(withDocs.data().results().getFirst().configs().getFirst().documentation())
                .isNotBlank();
        assertThat(withoutDocs.data().results().getFirst().configs().getFirst().documentation())
                .isNull();
        assertThat(withoutDocs.data().results().getFirst().configs().getFirst().synonyms())
                .isEmpty();
    }

    @Test
    void unknownAndIllegalTopicsAndOtherResourceTypesAreErrorsPerResource() {
        DescribeConfigsResponse response = describe(
                4,
                false,
                false,
                resource(ConfigResource.Type.TOPIC, "missing", null),
                resource(ConfigResource.Type.TOPIC, "bad name", null),
                resource(ConfigResource.Type.GROUP, "g", null),
                resource(ConfigResource.Type.BROKER, "0", null),
                resource(ConfigResource.Type.BROKER, "not-a-number", null),
                resource(ConfigResource.Type.TOPIC, "orders", List.of("retention.ms")));

        assertThat(response.data().results())
                .extracting(DescribeConfigsResult::resourceName, DescribeConfigsResult::errorCode)
                .containsExactly(
                        tuple("missing", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                        tuple("bad name", Errors.INVALID_TOPIC_EXCEPTION.code()),
                        tuple("g", Errors.INVALID_REQUEST.code()),
                        tuple("0", Errors.INVALID_REQUEST.code()),
                        tuple("not-a-number", Errors.INVALID_REQUEST.code()),
                        tuple("orders", Errors.NONE.code()));
    }

    @Test
    void thisBrokerDescribesItsDefaultsReadOnlyUnderKafkasBrokerNames() {
        DescribeConfigsResponse own = describe(4, false, false, resource(ConfigResource.Type.BROKER, "1", null));
        DescribeConfigsResponse clusterDefault =
                describe(4, false, false, resource(ConfigResource.Type.BROKER, "", null));

        List<DescribeConfigsResourceResult> configs =
                own.data().results().getFirst().configs();
        assertThat(configs).allSatisfy(c -> assertThat(c.readOnly()).isTrue());
        assertThat(configs)
                .extracting(DescribeConfigsResourceResult::name, DescribeConfigsResourceResult::value)
                .contains(
                        tuple("log.retention.ms", "604800000"),
                        tuple("log.segment.bytes", "1073741824"),
                        tuple("num.partitions", "1"),
                        tuple("default.replication.factor", "1"),
                        tuple("auto.create.topics.enable", "false"),
                        tuple("node.id", "1"));
        assertThat(clusterDefault.data().results().getFirst().configs()).hasSameSizeAs(configs);
    }
}
