package io.tributary.broker.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.common.protocol.KafkaFrames;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.InternalLogin;
import io.tributary.common.security.internal.ScramSocketLogin;
import io.tributary.common.testing.KafkaTestConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two brokers whose internal listeners require a SCRAM login (the cluster secret is set) and whose
 * fetch handlers have a closed authorizer: the follower logs in as {@code tributary-broker-1},
 * counts as a super user for CLUSTER_ACTION, and replicates; an unauthenticated client gets nothing.
 */
class AuthenticatedReplicationTest {

    private static final String TOPIC = "secured";
    private static final ClusterSecret SECRET = ClusterSecret.of("0123456789abcdef0123456789abcdef-replicas");

    @TempDir
    Path dir;

    private final FakeControlPlane coordinator = new FakeControlPlane();
    private final List<ReplicationTestBroker> brokers = new ArrayList<>();

    @BeforeEach
    void startCluster() {
        for (int id = 0; id < 2; id++) {
            brokers.add(new ReplicationTestBroker(
                            id, dir.resolve("broker-" + id), coordinator, ReplicationTestBroker.quickConfig())
                    .withSecret(SECRET)
                    .start());
        }
        ReplicationTestBroker.awaitTopic(coordinator, brokers, TOPIC);
    }

    @AfterEach
    void stopCluster() {
        brokers.forEach(ReplicationTestBroker::stop);
    }

    private static ProduceRequest produceRequest(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(1000L + i, ("v" + i).getBytes(StandardCharsets.US_ASCII));
        }
        return ReplicationTestRecords.produceRequest(TOPIC, (short) -1, 30_000, records);
    }

    /** Produces with acks=all on a connection logged in as {@code login}. */
    private Errors produce(ReplicationTestBroker leader, InternalLogin login, int count) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", leader.port()), 5_000);
            socket.setSoTimeout(60_000);
            ScramSocketLogin.login(socket, login, "test-producer", 1 << 20);
            ProduceRequest request = produceRequest(count);
            ProduceResponse response = (ProduceResponse) KafkaFrames.roundTrip(
                    socket,
                    request,
                    new RequestHeader(request.apiKey(), request.version(), "test-producer", 1),
                    1 << 20);
            // one partition: its error is the only one counted
            return response.errorCounts().keySet().iterator().next();
        }
    }

    @Test
    void theFollowerLogsInAndReplicatesSoAcksAllCompletes() throws Exception {
        ReplicationTestBroker leader =
                brokers.get(coordinator.partitionInfo(TOPIC, 0).leader());
        ReplicationTestBroker follower = brokers.get(1 - leader.id);

        assertThat(produce(leader, SECRET.brokerKey(leader.id).kafkaLogin(), 5)).isEqualTo(Errors.NONE);

        assertThat(leader.partition(TOPIC, 0).highWatermark()).isEqualTo(5L);
        assertThat(follower.partition(TOPIC, 0).log().logEndOffset()).isGreaterThanOrEqualTo(5L);
        assertThat(coordinator.partitionInfo(TOPIC, 0).isr()).containsExactlyInAnyOrder(0, 1);
    }

    @Test
    void anUnauthenticatedClientOrAnotherSecretsLoginGetsNothing() throws Exception {
        ReplicationTestBroker leader =
                brokers.get(coordinator.partitionInfo(TOPIC, 0).leader());
        try (KafkaTestConnection connection = KafkaTestConnection.open(leader.port())) {
            connection.send(produceRequest(1));
            assertThat(connection.closedByServer()).isTrue();
        }
        InternalLogin foreign = ClusterSecret.of("another cluster's secret, 32 bytes or more")
                .brokerKey(1)
                .kafkaLogin();
        assertThatThrownBy(() -> produce(leader, foreign, 1)).isInstanceOf(ScramSocketLogin.LoginFailedException.class);
        assertThat(leader.partition(TOPIC, 0).log().logEndOffset()).isZero();
    }
}
