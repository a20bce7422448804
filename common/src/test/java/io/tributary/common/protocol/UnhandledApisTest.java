package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.testing.KafkaTestConnection;
import java.util.Arrays;
import java.util.stream.Stream;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every API and version kafka-clients knows, sent to a listener with no handler for it, gets a
 * response of its own type that kafka-clients parses, and the connection goes on.
 */
class UnhandledApisTest {

    private static final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private static KafkaProtocolServer server;

    @BeforeAll
    static void start() {
        server = TestHandlers.start(ProtocolServerConfig.defaults("test", "127.0.0.1", 0), registry);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Stream<Arguments> everyApiAndVersion() {
        return Arrays.stream(ApiKeys.values())
                .filter(api -> api != ApiKeys.API_VERSIONS)
                .flatMap(api -> api.allVersions().stream().map(version -> Arguments.of(api, version)));
    }

    @ParameterizedTest(name = "{0} v{1}")
    @MethodSource("everyApiAndVersion")
    void requestForAnApiWithoutHandlerIsAnsweredWithItsOwnResponseTypeAndTheConnectionGoesOn(ApiKeys api, short version)
            throws Exception {
        var header = new RequestHeader(
                new RequestHeaderData()
                        .setRequestApiKey(api.id)
                        .setRequestApiVersion(version)
                        .setCorrelationId(version)
                        .setClientId(KafkaTestConnection.CLIENT_ID),
                api.requestHeaderVersion(version));
        var body = api.messageType.newRequest();
        // Default bodies parse, except where kafka-clients checks values: make those valid.
        if (body instanceof ProduceRequestData produce) {
            produce.setAcks((short) -1); // acks=0 gets no response: see KafkaProtocolServerTest
        }
        if (body instanceof DescribeAclsRequestData describeAcls) {
            describeAcls
                    .setResourceTypeFilter(ResourceType.ANY.code())
                    .setOperation(AclOperation.ANY.code())
                    .setPermissionType(AclPermissionType.ANY.code());
        }

        try (var connection = KafkaTestConnection.open(server.port())) {
            connection.writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), body, version));
            AbstractResponse response = connection.receive(header);

            assertThat(response.apiKey()).isEqualTo(api);
            assertThat(Errors.forCode(connection.apiVersions().data().errorCode()))
                    .isEqualTo(Errors.NONE);
        }
    }
}
