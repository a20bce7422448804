package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.internal.ScramSocketLogin;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The internal login ({@link ScramSocketLogin}) of a raw blocking socket against a real SASL
 * listener whose SCRAM-SHA-512 credential of {@code tributary-broker-3} was made from the broker's
 * derived password, as the coordinators write it.
 */
class ScramSocketLoginTest {

    private static final ClusterSecret SECRET = ClusterSecret.of("0123456789abcdef0123456789abcdef-login");
    private static final InternalLogin BROKER_3 = SECRET.brokerKey(3).kafkaLogin();
    private static final byte[] SALT = "salt-of-sixteen!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicReference<KafkaPrincipal> seen = new AtomicReference<>();
    private KafkaProtocolServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start(List<String> mechanisms, UnaryOperator<ScramCredentialData> stored) {
        ScramCredentialData credential = stored.apply(
                ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, BROKER_3.password(), SALT, ScramKeys.MIN_ITERATIONS));
        CredentialLookup users = new CredentialLookup() {
            @Override
            public Optional<ScramCredentialData> scram(String mechanism, String user) {
                return mechanism.equals("SCRAM-SHA-512") && user.equals(BROKER_3.user())
                        ? Optional.of(credential)
                        : Optional.empty();
            }

            @Override
            public boolean checkPlain(String user, char[] password) {
                return false;
            }
        };
        server = TestHandlers.startRecordingPrincipals(
                "internal", new ListenerSecurity(null, new SaslSettings(mechanisms, users)), registry, seen);
    }

    private Socket connect() throws Exception {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    @Test
    void aBrokerLogsInAndItsRequestsCarryItsPrincipal() throws Exception {
        start(List.of("SCRAM-SHA-512", "SCRAM-SHA-256"), UnaryOperator.identity());
        try (Socket socket = connect()) {
            ScramSocketLogin.login(socket, BROKER_3, "tributary-replica-3", 1 << 20);

            var request = TestRequests.describeCluster(0);
            AbstractResponse answer = KafkaFrames.roundTrip(
                    socket,
                    request,
                    new RequestHeader(request.apiKey(), request.version(), "tributary-replica-3", 7),
                    1 << 20);
            assertThat(answer).isInstanceOf(DescribeClusterResponse.class);
        }
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("tributary-broker-3"));
    }

    @Test
    void aPasswordFromAnotherSecretIsRefusedWithKafkasError() throws Exception {
        start(List.of("SCRAM-SHA-512"), UnaryOperator.identity());
        InternalLogin wrong = ClusterSecret.of("another-secret-of-at-least-32-bytes!!")
                .brokerKey(3)
                .kafkaLogin();
        try (Socket socket = connect()) {
            assertThatThrownBy(() -> ScramSocketLogin.login(socket, wrong, "tributary-replica-3", 1 << 20))
                    .isInstanceOf(ScramSocketLogin.LoginFailedException.class)
                    .hasMessage("login as tributary-broker-3 refused (SASL_AUTHENTICATION_FAILED): Authentication"
                            + " failed during authentication due to invalid credentials with SASL mechanism"
                            + " SCRAM-SHA-512");
        }
        assertThat(seen.get()).isNull();
    }

    @Test
    void aListenerWithoutScramSha512RefusesTheHandshakeNamingWhatItOffers() throws Exception {
        start(List.of("SCRAM-SHA-256", "PLAIN"), UnaryOperator.identity());
        try (Socket socket = connect()) {
            assertThatThrownBy(() -> ScramSocketLogin.login(socket, BROKER_3, "tributary-replica-3", 1 << 20))
                    .isInstanceOf(ScramSocketLogin.LoginFailedException.class)
                    .hasMessage("the listener refused SASL mechanism SCRAM-SHA-512 (UNSUPPORTED_SASL_MECHANISM); it"
                            + " offers [SCRAM-SHA-256, PLAIN]");
        }
    }

    @Test
    void aServerThatCannotSignWithTheCredentialsServerKeyIsNotTrusted() throws Exception {
        // The stored key checks the broker's proof; a wrong server key makes the server's final
        // signature one the broker's client rejects.
        start(
                List.of("SCRAM-SHA-512"),
                c -> new ScramCredentialData(c.salt(), c.storedKey(), new byte[c.serverKey().length], c.iterations()));
        try (Socket socket = connect()) {
            assertThatThrownBy(() -> ScramSocketLogin.login(socket, BROKER_3, "tributary-replica-3", 1 << 20))
                    .isInstanceOf(ScramSocketLogin.LoginFailedException.class)
                    .hasMessageStartingWith("login as tributary-broker-3 failed: ");
        }
    }
}
