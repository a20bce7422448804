package io.tributary.common.protocol;

import static io.tributary.common.protocol.TestHandlers.count;
import static io.tributary.common.protocol.TestHandlers.eventually;
import static io.tributary.common.protocol.TestHandlers.handler;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.testing.KafkaTestConnection;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.junit.jupiter.api.Test;

/**
 * The listener's side of {@code connection_creation_rate}: each accepted connection is put to the
 * {@link ConnectionAdmission}; one it refuses is never served, held unread, then closed; one it takes
 * is served as usual.
 */
class ConnectionAdmissionTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<InetAddress> asked = new CopyOnWriteArrayList<>();

    private KafkaProtocolServer start(long throttleMs) {
        ConnectionAdmission admission = address -> {
            asked.add(address);
            return asked.size() == 1 ? 0 : throttleMs;
        };
        var server = new KafkaProtocolServer(
                ProtocolServerConfig.defaults("test", "127.0.0.1", 0),
                List.of(handler(
                        ApiKeys.DESCRIBE_CLUSTER,
                        0,
                        2,
                        request -> new DescribeClusterResponse(new DescribeClusterResponseData()))),
                new ProtocolMetrics(registry, "test"),
                ListenerSecurity.PLAINTEXT,
                admission);
        server.start();
        return server;
    }

    @Test
    void aRefusedConnectionIsHeldUnreadThenClosedWhileATakenOneIsServed() throws Exception {
        try (var server = start(200);
                var taken = KafkaTestConnection.open(server.port());
                var refused = new Socket("127.0.0.1", server.port())) {
            taken.roundTrip(TestRequests.describeCluster(1), DescribeClusterResponse.class);

            refused.getOutputStream().write(new byte[] {0, 0, 0, 1, 0});
            assertThat(readAfterClose(refused.getInputStream()))
                    .as("closed without an answer")
                    .isEqualTo(-1);

            assertThat(asked).containsExactly(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("127.0.0.1"));
            assertThat(server.connectionCount()).isEqualTo(1);
            eventually()
                    .untilAsserted(() -> assertThat(count(registry, "tributary.protocol.connections.throttled"))
                            .isEqualTo(1.0));
            assertThat(count(registry, "tributary.protocol.connections.throttled.time"))
                    .isEqualTo(0.2);
        }
    }

    /**
     * What a read of a connection the listener closed gives: -1, also when the close came as a
     * reset (the listener closes with the bytes the client wrote still unread, and the kernel then
     * sends RST instead of FIN).
     */
    private static int readAfterClose(InputStream in) throws IOException {
        try {
            return in.read();
        } catch (SocketException reset) {
            return -1;
        }
    }

    @Test
    void closingTheListenerClosesTheConnectionsItHolds() throws Exception {
        var server = start(600_000);
        try (var taken = KafkaTestConnection.open(server.port());
                var refused = new Socket("127.0.0.1", server.port())) {
            eventually().until(() -> asked.size() == 2);
            server.close();
            assertThat(readAfterClose(refused.getInputStream())).isEqualTo(-1);
        } finally {
            server.close();
        }
    }
}
