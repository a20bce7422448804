package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.common.testing.ScramClients;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.security.sasl.SaslClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.scram.internals.ScramSaslClientProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A SASL listener (KIP-152 framing) with the PLAIN and SCRAM mechanisms, driven by kafka-clients'
 * own client side: a real {@code Admin} with {@code SASL_PLAINTEXT}, and raw exchanges for the
 * answers Kafka gives to wrong passwords, unknown users, unknown mechanisms and requests out of turn.
 */
class KafkaProtocolServerSaslTest {

    static {
        ScramSaslClientProvider.initialize();
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicReference<KafkaPrincipal> seen = new AtomicReference<>();
    private KafkaProtocolServer server;

    @BeforeEach
    void start() {
        server = TestHandlers.startRecordingPrincipals(
                "sasl",
                new ListenerSecurity(
                        null,
                        new SaslSettings(List.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN"), new TestCredentials())),
                registry,
                seen);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Admin admin(String mechanism, String user, String password) {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        properties.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        properties.put("sasl.mechanism", mechanism);
        String module = mechanism.equals("PLAIN")
                ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        properties.put(
                "sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        return Admin.create(properties);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN"})
    void aKafkaClientAuthenticatesAndItsRequestsCarryItsPrincipal(String mechanism) throws Exception {
        try (Admin admin = admin(mechanism, "alice", TestCredentials.ALICE_PASSWORD)) {
            assertThat(admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                    .isEqualTo(TestHandlers.CLUSTER_ID);
        }
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("alice"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SCRAM-SHA-256", "PLAIN"})
    void aWrongPasswordFailsWithKafkasError(String mechanism) {
        try (Admin admin = admin(mechanism, "alice", "wrong")) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(SaslAuthenticationException.class)
                    .hasMessage(
                            mechanism.equals("PLAIN")
                                    ? "Authentication failed: Invalid username or password"
                                    : "Authentication failed during authentication due to invalid credentials with"
                                            + " SASL mechanism SCRAM-SHA-256");
        }
        assertThat(seen.get()).isNull();
    }

    @Test
    void apiVersionsBeforeTheHandshakeAdvertisesTheExchangeAndAnyOtherRequestClosesTheConnection() throws Exception {
        try (var connection = KafkaTestConnection.open(server.port())) {
            List<Short> keys = connection.apiVersions().data().apiKeys().stream()
                    .map(ApiVersion::apiKey)
                    .toList();
            assertThat(keys).contains(ApiKeys.SASL_HANDSHAKE.id, ApiKeys.SASL_AUTHENTICATE.id);
            connection.send(TestRequests.describeCluster(0));
            assertThat(connection.closedByServer()).isTrue();
        }
        assertThat(seen.get()).isNull();
    }

    @Test
    void anUnknownMechanismIsAnsweredWithTheEnabledOnesAndTheConnectionCloses() throws Exception {
        try (var connection = KafkaTestConnection.open(server.port())) {
            SaslHandshakeResponse response = connection.roundTrip(
                    new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("GSSAPI"))
                            .build((short) 1),
                    SaslHandshakeResponse.class);
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM);
            assertThat(response.data().mechanisms()).containsExactly("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN");
            assertThat(connection.closedByServer()).isTrue();
        }
    }

    @Test
    void anUnknownUserFailsLikeAWrongPasswordAndARequestDuringTheExchangeIsIllegal() throws Exception {
        try (var connection = KafkaTestConnection.open(server.port())) {
            handshake(connection, "SCRAM-SHA-256");
            SaslClient client = scramClient("SCRAM-SHA-256", "mallory", "x");
            SaslAuthenticateResponse response = authenticate(connection, client.evaluateChallenge(new byte[0]));
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
            assertThat(response.data().errorMessage())
                    .isEqualTo("Authentication failed during authentication due to invalid credentials with SASL"
                            + " mechanism SCRAM-SHA-256");
            assertThat(connection.closedByServer()).isTrue();
        }
        try (var connection = KafkaTestConnection.open(server.port())) {
            handshake(connection, "SCRAM-SHA-256");
            var answer = connection.roundTrip(TestRequests.describeCluster(0), AbstractResponse.class);
            assertThat(answer.errorCounts()).containsKey(Errors.ILLEGAL_SASL_STATE);
            assertThat(connection.closedByServer()).isTrue();
        }
    }

    @Test
    void aRawScramExchangeVerifiesTheServersSignature() throws Exception {
        try (var connection = KafkaTestConnection.open(server.port())) {
            handshake(connection, "SCRAM-SHA-512");
            SaslClient client = scramClient("SCRAM-SHA-512", "alice", TestCredentials.ALICE_PASSWORD);
            byte[] token = client.evaluateChallenge(new byte[0]);
            while (!client.isComplete()) {
                SaslAuthenticateResponse response = authenticate(connection, token);
                assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
                assertThat(response.data().sessionLifetimeMs()).isZero();
                token = client.evaluateChallenge(response.data().authBytes());
            }
            // The client checked the server's final signature (it throws if the server did not know the key).
            connection.roundTrip(TestRequests.describeCluster(0), AbstractResponse.class);
            assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("alice"));
            // A second handshake on an authenticated connection without connections.max.reauth.ms:
            // no re-authentication; answered as Kafka's request handler does, the connection stays.
            var again = connection.roundTrip(
                    new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-512"))
                            .build((short) 1),
                    SaslHandshakeResponse.class);
            assertThat(Errors.forCode(again.data().errorCode())).isEqualTo(Errors.ILLEGAL_SASL_STATE);
            seen.set(null);
            connection.roundTrip(TestRequests.describeCluster(0), AbstractResponse.class);
            assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("alice"));
        }
    }

    private static void handshake(KafkaTestConnection connection, String mechanism) throws Exception {
        SaslHandshakeResponse response = connection.roundTrip(
                new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism))
                        .build((short) 1),
                SaslHandshakeResponse.class);
        assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
    }

    private static SaslAuthenticateResponse authenticate(KafkaTestConnection connection, byte[] token)
            throws Exception {
        return connection.roundTrip(
                new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(token))
                        .build((short) 2),
                SaslAuthenticateResponse.class);
    }

    private static SaslClient scramClient(String mechanism, String user, String password) throws Exception {
        return ScramClients.client(mechanism, user, password);
    }
}
