package io.tributary.broker.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.common.protocol.KafkaFrames;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.InternalClientSecurity;
import io.tributary.common.security.internal.ScramSocketLogin;
import io.tributary.common.security.tls.TlsClient;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.testing.CapturingProxy;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.common.testing.TestCertificates;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two brokers whose internal listeners are SASL_SSL (a certificate from a test CA for 127.0.0.1,
 * the cluster secret's logins inside TLS), each registered behind a TCP proxy that keeps what
 * passes: the follower replicates through the proxy, and a record's value is not in the captured
 * bytes; the same cluster with SASL_PLAINTEXT listeners shows the value on the wire (the check can
 * fail). A PLAINTEXT or SASL_PLAINTEXT client, and a TLS client without the cluster's CA, get
 * nothing from a TLS internal listener.
 */
class TlsReplicationTest {

    private static final String TOPIC = "encrypted";
    private static final ClusterSecret SECRET = ClusterSecret.of("0123456789abcdef0123456789abcdef-tls-replicas");

    @TempDir
    Path dir;

    private final FakeControlPlane coordinator = new FakeControlPlane();
    private final List<ReplicationTestBroker> brokers = new ArrayList<>();
    private final List<CapturingProxy> proxies = new ArrayList<>();
    private Path certificates;

    private void startCluster(boolean tls) throws Exception {
        TlsSettings serverTls = null;
        TlsClient clientTls = null;
        if (tls) {
            certificates = dir.resolve("certificates");
            java.nio.file.Files.createDirectories(certificates);
            TestCertificates made = new TestCertificates(certificates);
            made.ca("cluster-ca");
            made.signedServer("cluster-ca", "broker", "CN=broker");
            serverTls = made.serverTls("broker");
            clientTls = trusting("cluster-ca.pem");
        }
        for (int id = 0; id < 2; id++) {
            CapturingProxy proxy = new CapturingProxy();
            proxies.add(proxy);
            ReplicationTestBroker broker = new ReplicationTestBroker(
                            id, dir.resolve("broker-" + id), coordinator, ReplicationTestBroker.quickConfig())
                    .withSecret(SECRET)
                    .withAdvertisedPort(proxy::target);
            if (tls) {
                broker.withTls(serverTls, clientTls);
            }
            brokers.add(broker.start());
        }
        ReplicationTestBroker.awaitTopic(coordinator, brokers, TOPIC);
    }

    private TlsClient trusting(String caPem) {
        return new TlsClient(certificates.resolve(caPem), "PEM", null, TlsSettings.DEFAULT_PROTOCOLS, TlsClient.HTTPS);
    }

    @AfterEach
    void stopCluster() throws IOException {
        brokers.forEach(ReplicationTestBroker::stop);
        for (CapturingProxy proxy : proxies) {
            proxy.close();
        }
    }

    private ReplicationTestBroker leader() {
        return brokers.get(coordinator.partitionInfo(TOPIC, 0).leader());
    }

    /** Produces {@code value} with acks=all straight to the leader's listener (not through its proxy). */
    private static Errors produce(ReplicationTestBroker leader, InternalClientSecurity security, byte[] value)
            throws IOException {
        Duration timeout = Duration.ofSeconds(60);
        try (Socket socket = security.connect("127.0.0.1", leader.port(), timeout, timeout, "test-producer", 1 << 20)) {
            ProduceRequest request = ReplicationTestRecords.produceRequest(
                    TOPIC, (short) -1, 30_000, new SimpleRecord(1000L, value), new SimpleRecord(1001L, value));
            ProduceResponse response = (ProduceResponse) KafkaFrames.roundTrip(
                    socket,
                    request,
                    new RequestHeader(request.apiKey(), request.version(), "test-producer", 1),
                    1 << 20);
            return response.errorCounts().keySet().iterator().next();
        }
    }

    private static byte[] secretValue() {
        return ("not-for-eavesdroppers-" + UUID.randomUUID()).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void theFollowerReplicatesOverTlsAndTheRecordsValueIsNotOnTheWire() throws Exception {
        startCluster(true);
        ReplicationTestBroker leader = leader();
        ReplicationTestBroker follower = brokers.get(1 - leader.id);
        byte[] value = secretValue();

        assertThat(produce(leader, leader.clientSecurity(), value)).isEqualTo(Errors.NONE);

        assertThat(leader.partition(TOPIC, 0).highWatermark()).isEqualTo(2L);
        assertThat(follower.partition(TOPIC, 0).log().logEndOffset()).isGreaterThanOrEqualTo(2L);
        assertThat(coordinator.partitionInfo(TOPIC, 0).isr()).containsExactlyInAnyOrder(0, 1);
        CapturingProxy leaderProxy = proxies.get(leader.id);
        assertThat(leaderProxy.capturedBytes())
                .as("the follower fetched through the leader's proxy")
                .isGreaterThan(0);
        assertThat(leaderProxy.sawBytes(value))
                .as("the record's value on the wire")
                .isFalse();
        assertThat(leaderProxy.sawBytes(
                        SECRET.brokerKey(follower.id).kafkaLogin().user().getBytes(StandardCharsets.US_ASCII)))
                .as("the follower's login name on the wire")
                .isFalse();
    }

    @Test
    void withoutTlsTheSameReplicationShowsTheRecordsValueOnTheWire() throws Exception {
        startCluster(false);
        ReplicationTestBroker leader = leader();
        byte[] value = secretValue();

        assertThat(produce(leader, leader.clientSecurity(), value)).isEqualTo(Errors.NONE);

        assertThat(proxies.get(leader.id).sawBytes(value)).isTrue();
    }

    @Test
    void aPlaintextClientOrAClientWithoutTheClusterCaGetsNothingFromTheTlsListener() throws Exception {
        startCluster(true);
        ReplicationTestBroker leader = leader();
        byte[] value = secretValue();

        try (KafkaTestConnection plain = KafkaTestConnection.open(leader.port())) {
            plain.send(ReplicationTestRecords.produceRequest(TOPIC, (short) -1, 30_000, new SimpleRecord(1L, value)));
            assertThat(plain.readUntilClosed())
                    .as("at most a TLS alert, never an answer")
                    .isLessThan(64);
        }
        var saslPlaintext = InternalClientSecurity.of(
                Optional.of(SECRET.brokerKey(leader.id).kafkaLogin()));
        assertThatThrownBy(() -> produce(leader, saslPlaintext, value))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(ScramSocketLogin.LoginFailedException.class);
        TestCertificates made = new TestCertificates(certificates);
        made.ca("another-ca");
        var anotherCa = new InternalClientSecurity(
                Optional.of(SECRET.brokerKey(leader.id).kafkaLogin()), Optional.of(trusting("another-ca.pem")));
        assertThatThrownBy(() -> produce(leader, anotherCa, value)).isInstanceOf(SSLHandshakeException.class);
        var jdkAuthorities = new InternalClientSecurity(
                Optional.of(SECRET.brokerKey(leader.id).kafkaLogin()),
                Optional.of(new TlsClient(null, "PKCS12", null, TlsSettings.DEFAULT_PROTOCOLS, TlsClient.HTTPS)));
        assertThatThrownBy(() -> produce(leader, jdkAuthorities, value)).isInstanceOf(SSLHandshakeException.class);

        assertThat(leader.partition(TOPIC, 0).log().logEndOffset()).isZero();
    }
}
