package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tributary.common.security.tls.SslPrincipalMapper;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.testing.TestCertificates;
import io.tributary.coordinator.metadata.Fixtures;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three voters on the mutual-TLS transport ({@link RaftTransport#mutualTls}) with a certificate
 * from the cluster's test CA: they elect a leader and commit through a client that has a
 * certificate from that CA, while a client whose certificate another CA signed, and a client on the
 * plaintext transport, commit nothing (their connections are refused before any Raft message).
 */
class MutualTlsRaftTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    static Path certificatesDir;

    private static TestCertificates certificates;

    @TempDir
    Path dir;

    private final List<MetadataRaftNode> nodes = new ArrayList<>();
    private final List<MetadataClient> clients = new ArrayList<>();

    @BeforeAll
    static void makeCertificates() throws Exception {
        certificates = new TestCertificates(certificatesDir);
        certificates.ca("raft-ca");
        certificates.ca("other-ca");
        // One certificate for every voter and the client (as a cluster may share one): the test is
        // about who signed it. keytool is slow on a loaded machine.
        certificates.signedPeer("raft-ca", "coordinator", "CN=coordinator");
        certificates.signedPeer("other-ca", "rogue", "CN=coordinator");
        certificates.trustStore("raft-ca", "raft-ca.pem", "raft-trust.p12");
    }

    @AfterEach
    void stop() throws IOException {
        for (MetadataClient client : clients) {
            client.close();
        }
        nodes.stream()
                .map(node -> CompletableFuture.runAsync(() -> {
                    try {
                        node.close();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }))
                .toList()
                .forEach(CompletableFuture::join);
    }

    @Test
    void votersWithTheClustersCertificatesCommitAndOthersAreRefused() throws Exception {
        List<InetSocketAddress> peers = freePorts(3);
        for (int i = 0; i < 3; i++) {
            MetadataRaftNode node = new MetadataRaftNode(
                    RaftNodeConfig.withDefaults(i, peers, dir.resolve("c" + i)), transport("coordinator"));
            nodes.add(node);
            node.start();
        }
        assertThat(nodes.getFirst().transport().describe()).isEqualTo("mutual-tls");
        await().atMost(TIMEOUT).until(() -> nodes.stream().anyMatch(MetadataRaftNode::isLeader));

        MetadataClient trusted = client(peers, transport("coordinator"), 5);
        long version = trusted.submit(Fixtures.register(0, 0, Optional.empty()));
        assertThat(version).isPositive();
        await().atMost(TIMEOUT)
                .until(() -> nodes.stream()
                        .allMatch(n -> n.stateMachine().image().brokers().containsKey(0)));

        MetadataClient rogue = client(peers, transport("rogue"), 2);
        assertThatThrownBy(() -> rogue.submit(Fixtures.register(1, 0, Optional.empty())))
                .isInstanceOf(IOException.class);
        MetadataClient plaintext = client(peers, RaftTransport.PLAIN, 2);
        assertThatThrownBy(() -> plaintext.submit(Fixtures.register(2, 0, Optional.empty())))
                .isInstanceOf(IOException.class);

        assertThat(nodes.stream().map(n -> n.stateMachine().image().brokers().keySet()))
                .as("only the trusted client's broker is registered, on every voter")
                .allSatisfy(ids -> assertThat(ids).containsExactly(0));
    }

    private MetadataClient client(List<InetSocketAddress> peers, RaftTransport transport, int attempts) {
        MetadataClient client =
                new MetadataClient(MetadataRaftNode.group(peers), transport, Duration.ofSeconds(3), attempts);
        clients.add(client);
        return client;
    }

    /** Mutual TLS with {@code alias}'s key and certificate, trusting the cluster's CA only. */
    private static RaftTransport transport(String alias) {
        TlsSettings settings = new TlsSettings(
                certificatesDir.resolve(alias + ".p12"),
                "PKCS12",
                TestCertificates.PASSWORD.toCharArray(),
                null,
                certificatesDir.resolve("raft-trust.p12"),
                "PKCS12",
                TestCertificates.PASSWORD.toCharArray(),
                TlsSettings.ClientAuth.REQUIRED,
                TlsSettings.DEFAULT_PROTOCOLS,
                null,
                SslPrincipalMapper.DEFAULT);
        return RaftTransport.mutualTls(settings.keyManagers()[0], settings.trustManagers()[0]);
    }

    private static List<InetSocketAddress> freePorts(int count) throws IOException {
        List<InetSocketAddress> peers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                peers.add(new InetSocketAddress("127.0.0.1", s.getLocalPort()));
            }
        }
        return peers;
    }
}
