package io.tributary.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.InternalClientSecurity;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.internal.ScramSocketLogin;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.common.security.tls.TlsClient;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.testing.TestCertificates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker's group forwarding to a coordinator listener that requires SASL (the cluster secret is
 * set): the client logs each new connection in as {@code tributary-broker-<id>} before its first
 * request; without a login, or with another secret's, no request reaches the coordinator. On a
 * SASL_SSL listener the client runs the TLS handshake first (the coordinator's certificate checked
 * against the cluster's CA and the host connected to) and logs in inside it; a client without TLS,
 * or without the CA, reaches nothing.
 */
class CoordinatorGroupsClientLoginTest {

    private static final ClusterSecret SECRET = ClusterSecret.of("0123456789abcdef0123456789abcdef-groups");
    private static final InternalLogin BROKER_4 = SECRET.brokerKey(4).kafkaLogin();

    @TempDir
    static Path stores;

    private final List<KafkaPrincipal> callers = new CopyOnWriteArrayList<>();
    private CredentialLookup users;
    private RequestHandler listGroups;
    private KafkaProtocolServer coordinator;

    @BeforeAll
    static void makeStores() throws Exception {
        TestCertificates certificates = new TestCertificates(stores);
        certificates.ca("cluster-ca");
        certificates.signedServer("cluster-ca", "coordinator", "CN=coordinator");
        certificates.ca("other-ca");
    }

    @BeforeEach
    void start() {
        ScramCredentialData credential = ScramKeys.fromPassword(
                ScramKeys.SCRAM_SHA_512,
                BROKER_4.password(),
                "sixteen-byte-slt".getBytes(StandardCharsets.US_ASCII),
                ScramKeys.MIN_ITERATIONS);
        users = new CredentialLookup() {
            @Override
            public Optional<ScramCredentialData> scram(String mechanism, String user) {
                return mechanism.equals(ScramSocketLogin.MECHANISM) && user.equals(BROKER_4.user())
                        ? Optional.of(credential)
                        : Optional.empty();
            }

            @Override
            public boolean checkPlain(String user, char[] password) {
                return false;
            }
        };
        listGroups = new RequestHandler() {
            @Override
            public ApiVersionRange versions() {
                return ApiVersionRange.of(ApiKeys.LIST_GROUPS, 0, 5);
            }

            @Override
            public AbstractResponse handle(KafkaRequest request) {
                callers.add(request.connection().principal());
                return new ListGroupsResponse(new ListGroupsResponseData().setErrorCode(Errors.NONE.code()));
            }
        };
        coordinator = serve(null);
    }

    /** A coordinator listener requiring SCRAM-SHA-512 logins, TLS with {@code tls} when not null. */
    private KafkaProtocolServer serve(TlsSettings tls) {
        ProtocolServerConfig config = ProtocolServerConfig.defaults("coordinator", "127.0.0.1", 0);
        KafkaProtocolServer server = new KafkaProtocolServer(
                config,
                List.of(listGroups),
                new ProtocolMetrics(new SimpleMeterRegistry(), config.name()),
                new ListenerSecurity(tls, new SaslSettings(List.of("SCRAM-SHA-512"), users)));
        server.start();
        return server;
    }

    private void serveTls() {
        coordinator.close();
        coordinator = serve(new TestCertificates(stores).serverTls("coordinator"));
    }

    private static Optional<TlsClient> trusting(String caPem) {
        return Optional.of(
                new TlsClient(stores.resolve(caPem), "PEM", null, TlsSettings.DEFAULT_PROTOCOLS, TlsClient.HTTPS));
    }

    @AfterEach
    void stop() {
        coordinator.close();
    }

    private CoordinatorGroupsClient client(Optional<InternalLogin> login) {
        return client(InternalClientSecurity.of(login));
    }

    private CoordinatorGroupsClient client(InternalClientSecurity security) {
        return new CoordinatorGroupsClient(
                new CoordinatorGroupsClient.Config(
                        Duration.ofSeconds(2), Duration.ofSeconds(10), 1 << 20, Duration.ofMinutes(1)),
                4,
                security);
    }

    private ListGroupsResponse listGroups(CoordinatorGroupsClient client) throws IOException {
        return client.listGroups(
                new GroupCoordinator(0, "127.0.0.1", coordinator.port()), new ListGroupsRequestData(), (short) 4);
    }

    @Test
    void aBrokerWithItsLoginReachesTheCoordinatorAsItsPrincipal() throws Exception {
        CoordinatorGroupsClient client = client(Optional.of(BROKER_4));

        assertThat(listGroups(client).data().errorCode()).isZero();
        assertThat(listGroups(client).data().errorCode()).isZero();
        assertThat(callers)
                .containsExactly(KafkaPrincipal.user("tributary-broker-4"), KafkaPrincipal.user("tributary-broker-4"));
    }

    @Test
    void withoutALoginOrWithAnotherSecretsNoRequestReachesTheCoordinator() {
        assertThatThrownBy(() -> listGroups(client(Optional.empty()))).isInstanceOf(IOException.class);
        InternalLogin foreign = ClusterSecret.of("another-cluster-secret-of-32-bytes-or-more")
                .brokerKey(4)
                .kafkaLogin();
        assertThatThrownBy(() -> listGroups(client(Optional.of(foreign))))
                .isInstanceOf(ScramSocketLogin.LoginFailedException.class)
                .hasMessageContaining("SASL_AUTHENTICATION_FAILED");
        assertThat(callers).isEmpty();
    }

    @Test
    void overSaslSslABrokerTrustingTheClusterCaLogsInInsideTlsAndReachesTheCoordinator() throws Exception {
        serveTls();
        CoordinatorGroupsClient client =
                client(new InternalClientSecurity(Optional.of(BROKER_4), trusting("cluster-ca.pem")));

        assertThat(listGroups(client).data().errorCode()).isZero();
        assertThat(callers).containsExactly(KafkaPrincipal.user("tributary-broker-4"));
    }

    @Test
    void overSaslSslWithoutTlsOrWithoutTheClusterCaNoRequestReachesTheCoordinator() {
        serveTls();

        assertThatThrownBy(() -> listGroups(client(Optional.of(BROKER_4)))).isInstanceOf(IOException.class);
        assertThatThrownBy(() ->
                        listGroups(client(new InternalClientSecurity(Optional.of(BROKER_4), trusting("other-ca.pem")))))
                .isInstanceOf(SSLHandshakeException.class);
        assertThat(callers).isEmpty();
    }
}
