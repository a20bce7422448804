package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.oauth.JwksSource;
import io.tributary.common.security.oauth.JwtValidationSettings;
import io.tributary.common.security.oauth.JwtValidator;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.testing.FileTokenLogin;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.common.testing.TestJwts;
import io.tributary.common.testing.TestJwts.Signer;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OAUTHBEARER on a SASL_PLAINTEXT listener whose JWKS an http endpoint on 127.0.0.1 serves, with
 * kafka-clients' own client side (its OAUTHBEARER login module and SASL client, the token handed
 * over by {@link FileTokenLogin}): a valid token logs in as {@code User:<sub>}, refused tokens fail
 * with Kafka's {@code invalid_token}, a client re-authenticates on its connections while it keeps
 * working (KIP-368), and a session left to expire is closed at its next request.
 */
class KafkaProtocolServerOAuthBearerTest {

    private static final String ISSUER = "https://issuer.test";
    private static final String AUDIENCE = "tributary";
    private static final Signer KEY = Signer.create("RS256", "rsa-1");

    @TempDir
    Path dir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicReference<KafkaPrincipal> seen = new AtomicReference<>();
    private HttpServer jwksEndpoint;
    private KafkaProtocolServer server;
    private Path tokenFile;

    @BeforeEach
    void startJwksEndpoint() throws IOException {
        jwksEndpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        jwksEndpoint.createContext("/jwks", exchange -> {
            byte[] body = TestJwts.jwks(KEY).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        jwksEndpoint.start();
        tokenFile = dir.resolve("token");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        jwksEndpoint.stop(0);
    }

    private void startListener(Duration oauthMaxReauth) {
        URI jwks = URI.create("http://127.0.0.1:" + jwksEndpoint.getAddress().getPort() + "/jwks");
        JwtValidator validator = new JwtValidator(
                new JwtValidationSettings(
                        Optional.of(ISSUER), Set.of(AUDIENCE), Duration.ofSeconds(30), "sub", "scope"),
                new JwksSource(JwksSource.Settings.of(jwks), InstantSource.system()),
                InstantSource.system());
        SaslSettings sasl = new SaslSettings(
                List.of("OAUTHBEARER"),
                CredentialLookup.NONE,
                Optional.of(validator),
                Map.of("OAUTHBEARER", oauthMaxReauth));
        server = TestHandlers.startRecordingPrincipals("oauth", new ListenerSecurity(null, sasl), registry, seen);
    }

    private static String token(String sub, String audience, Instant expires) {
        Map<String, Object> claims = TestJwts.claims(sub, ISSUER, audience, Instant.now());
        claims.put("exp", expires.getEpochSecond());
        return KEY.sign(claims);
    }

    private Admin admin(String token) throws IOException {
        Files.writeString(tokenFile, token);
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        properties.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        properties.putAll(FileTokenLogin.clientConfig(tokenFile));
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        return Admin.create(properties);
    }

    private double count(String name, String... tags) {
        return TestHandlers.count(registry, name, tags);
    }

    @Test
    void aKafkaClientWithAValidTokenActsAsItsSubject() throws Exception {
        startListener(Duration.ZERO);
        try (Admin admin = admin(token("alice", AUDIENCE, Instant.now().plusSeconds(3600)))) {
            assertThat(admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                    .isEqualTo(TestHandlers.CLUSTER_ID);
        }
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("alice"));
    }

    @Test
    void anExpiredTokenIsRefusedWithKafkasInvalidToken() throws Exception {
        startListener(Duration.ZERO);
        assertRefused(token("alice", AUDIENCE, Instant.now().minusSeconds(120)));
    }

    @Test
    void aTokenForAnotherAudienceIsRefusedWithKafkasInvalidToken() throws Exception {
        startListener(Duration.ZERO);
        assertRefused(token("alice", "another-cluster", Instant.now().plusSeconds(3600)));
    }

    @Test
    void aTokenSignedByAnUnknownKeyIsRefusedWithKafkasInvalidToken() throws Exception {
        startListener(Duration.ZERO);
        Map<String, Object> claims = TestJwts.claims("alice", ISSUER, AUDIENCE, Instant.now());
        assertRefused(Signer.create("ES256", "ec-stranger").sign(claims));
    }

    private void assertRefused(String token) throws IOException {
        try (Admin admin = admin(token)) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("{\"status\":\"invalid_token\"}");
        }
        assertThat(seen.get()).isNull();
    }

    @Test
    void aClientReauthenticatesOnItsConnectionsAndKeepsWorking() throws Exception {
        startListener(Duration.ofSeconds(2));
        try (Admin admin = admin(token("alice", AUDIENCE, Instant.now().plusSeconds(3600)))) {
            admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS);
            double connections = count("tributary.protocol.connections.accepted");
            Awaitility.await()
                    .pollInterval(Duration.ofMillis(200))
                    .atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> {
                        assertThat(admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                                .isEqualTo(TestHandlers.CLUSTER_ID);
                        assertThat(count("tributary.protocol.sasl.reauthentications", "result", "success"))
                                .isGreaterThanOrEqualTo(3);
                    });
            assertThat(count("tributary.protocol.connections.accepted")).isEqualTo(connections);
        }
        assertThat(count("tributary.protocol.sasl.reauthentications", "result", "failure"))
                .isZero();
        assertThat(count("tributary.protocol.sasl.sessions.expired")).isZero();
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("alice"));
    }

    @Test
    void aSessionLeftToExpireIsClosedAtItsNextRequest() throws Exception {
        startListener(Duration.ofSeconds(1));
        try (var connection = KafkaTestConnection.open(server.port())) {
            SaslHandshakeResponse handshake = connection.roundTrip(
                    new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("OAUTHBEARER"))
                            .build((short) 1),
                    SaslHandshakeResponse.class);
            assertThat(Errors.forCode(handshake.data().errorCode())).isEqualTo(Errors.NONE);
            String first = "n,,\u0001auth=Bearer "
                    + token("alice", AUDIENCE, Instant.now().plusSeconds(3600)) + "\u0001\u0001";
            SaslAuthenticateResponse authenticated = connection.roundTrip(
                    new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData()
                                    .setAuthBytes(first.getBytes(StandardCharsets.UTF_8)))
                            .build((short) 2),
                    SaslAuthenticateResponse.class);
            assertThat(Errors.forCode(authenticated.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(authenticated.data().sessionLifetimeMs()).isEqualTo(1000);

            Awaitility.await()
                    .pollInterval(Duration.ofMillis(100))
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> {
                        RequestHeader header = connection.send(TestRequests.describeCluster(0));
                        try {
                            connection.receive(header, AbstractResponse.class);
                            return false;
                        } catch (EOFException closed) {
                            return true;
                        }
                    });
        }
        TestHandlers.eventually()
                .untilAsserted(() -> assertThat(count("tributary.protocol.sasl.sessions.expired"))
                        .isEqualTo(1));
    }
}
