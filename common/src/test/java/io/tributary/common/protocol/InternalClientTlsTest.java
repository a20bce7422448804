package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.internal.InternalClientSecurity;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.internal.ScramSocketLogin;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.TlsClient;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.common.testing.TestCertificates;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tributary's own clients of TLS internal listeners ({@link InternalClientSecurity} with a {@link
 * TlsClient}) against common's listener: the TLS handshake checks the server's certificate against
 * the cluster's CA and, by default, the host name connected to (Kafka's {@code
 * ssl.endpoint.identification.algorithm=https}); the SCRAM login runs inside the TLS session; a
 * client without the CA, or one that does not speak TLS, gets nothing.
 */
class InternalClientTlsTest {

    private static final InternalLogin ALICE = new InternalLogin("alice", TestCredentials.ALICE_PASSWORD);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    static Path stores;

    private final AtomicReference<KafkaPrincipal> seen = new AtomicReference<>();
    private KafkaProtocolServer server;

    @BeforeAll
    static void makeStores() throws Exception {
        TestCertificates certificates = new TestCertificates(stores);
        certificates.ca("cluster-ca");
        certificates.signedServer("cluster-ca", "listener", "CN=listener");
        certificates.signedServer("cluster-ca", "elsewhere", "CN=elsewhere", "SAN=dns:elsewhere.example");
        certificates.ca("other-ca");
    }

    private void start(String alias, SaslSettings sasl) {
        TlsSettings tls = new TestCertificates(stores).serverTls(alias);
        server = TestHandlers.startRecordingPrincipals(
                "internal-tls", new ListenerSecurity(tls, sasl), new SimpleMeterRegistry(), seen);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static TlsClient trusting(String caPem, String endpointIdentification) {
        return new TlsClient(stores.resolve(caPem), "PEM", null, TlsSettings.DEFAULT_PROTOCOLS, endpointIdentification);
    }

    /** Connects as {@code security} and asks DescribeCluster; answers its error code. */
    private short describeCluster(InternalClientSecurity security) throws IOException {
        try (Socket socket = security.connect("127.0.0.1", server.port(), TIMEOUT, TIMEOUT, "internal-test", 1 << 20)) {
            DescribeClusterRequest request =
                    new DescribeClusterRequest.Builder(new DescribeClusterRequestData()).build((short) 0);
            DescribeClusterResponse response = (DescribeClusterResponse) KafkaFrames.roundTrip(
                    socket,
                    request,
                    new RequestHeader(request.apiKey(), request.version(), "internal-test", 1),
                    1 << 20);
            return response.data().errorCode();
        }
    }

    @Test
    void aClientTrustingTheClusterCaLogsInInsideTlsAndIsServedAsItsUser() throws Exception {
        start("listener", new SaslSettings(List.of("SCRAM-SHA-512"), new TestCredentials()));
        var security = new InternalClientSecurity(
                Optional.of(ALICE), Optional.of(trusting("cluster-ca.pem", TlsClient.HTTPS)));

        assertThat(security.protocolName()).isEqualTo("SASL_SSL");
        assertThat(describeCluster(security)).isZero();
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("alice"));
    }

    @Test
    void aCertificateThatDoesNotNameTheHostFailsTheHandshakeUnlessEndpointIdentificationIsOff() throws Exception {
        start("elsewhere", null);
        var checked =
                new InternalClientSecurity(Optional.empty(), Optional.of(trusting("cluster-ca.pem", TlsClient.HTTPS)));
        var unchecked = new InternalClientSecurity(Optional.empty(), Optional.of(trusting("cluster-ca.pem", "")));

        assertThatThrownBy(() -> describeCluster(checked)).isInstanceOf(SSLHandshakeException.class);
        assertThat(seen.get()).isNull();
        assertThat(describeCluster(unchecked)).isZero();
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.ANONYMOUS);
    }

    @Test
    void aClientWithoutTheClusterCaFailsTheHandshakeBeforeItsLogin() {
        start("listener", new SaslSettings(List.of("SCRAM-SHA-512"), new TestCredentials()));
        var jdkAuthorities = new InternalClientSecurity(
                Optional.of(ALICE),
                Optional.of(new TlsClient(null, "PKCS12", null, TlsSettings.DEFAULT_PROTOCOLS, TlsClient.HTTPS)));
        var anotherCa =
                new InternalClientSecurity(Optional.of(ALICE), Optional.of(trusting("other-ca.pem", TlsClient.HTTPS)));

        assertThatThrownBy(() -> describeCluster(jdkAuthorities)).isInstanceOf(SSLHandshakeException.class);
        assertThatThrownBy(() -> describeCluster(anotherCa)).isInstanceOf(SSLHandshakeException.class);
        assertThat(seen.get()).isNull();
    }

    @Test
    void aClientThatDoesNotSpeakTlsGetsNoAnswerNorALogin() throws Exception {
        start("listener", new SaslSettings(List.of("SCRAM-SHA-512"), new TestCredentials()));

        assertThatThrownBy(() -> describeCluster(InternalClientSecurity.of(Optional.of(ALICE))))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(ScramSocketLogin.LoginFailedException.class);
        try (KafkaTestConnection plain = KafkaTestConnection.open(server.port())) {
            plain.send(new DescribeClusterRequest.Builder(new DescribeClusterRequestData()).build((short) 0));
            assertThat(plain.readUntilClosed())
                    .as("bytes a PLAINTEXT client reads before the close: at most a TLS alert, never an answer")
                    .isLessThan(64);
        }
        assertThat(seen.get()).isNull();
    }

    @Test
    void onlyTls13And12AndHttpsOrNoEndpointIdentificationAreAccepted() {
        assertThatThrownBy(() -> new TlsClient(null, "PKCS12", null, List.of("TLSv1.1"), TlsClient.HTTPS))
                .hasMessageContaining("TLSv1.1");
        assertThatThrownBy(() -> new TlsClient(null, "PKCS12", null, TlsSettings.DEFAULT_PROTOCOLS, "ldaps"))
                .hasMessageContaining("ssl.endpoint.identification.algorithm");
    }
}
