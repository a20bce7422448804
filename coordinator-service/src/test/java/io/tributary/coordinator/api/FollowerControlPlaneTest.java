package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.coordinator.app.CoordinatorApplication;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.metadata.raft.RaftNodeConfig;
import io.tributary.coordinator.testing.TestCoordinators;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A coordinator process that is a follower: voters 1 and 2 run in this JVM and elect a leader between
 * them before voter 0 (the application under test) starts with an empty log, so voter 0 cannot win
 * an election. Its writes answer 307 to the leader's control plane; its reads come from the image it
 * follows.
 */
@SpringBootTest(classes = CoordinatorApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class FollowerControlPlaneTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final List<String> HTTP_PEERS = List.of("127.0.0.1:8091", "127.0.0.1:2", "127.0.0.1:3");

    private static Path dataDir;
    private static List<InetSocketAddress> peers;
    private static final MetadataRaftNode[] others = new MetadataRaftNode[3];

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException {
        dataDir = Files.createTempDirectory("follower-test");
        peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peers.add(new InetSocketAddress("127.0.0.1", TestCoordinators.freePort()));
        }
        for (int i = 1; i < 3; i++) {
            others[i] = new MetadataRaftNode(RaftNodeConfig.withDefaults(i, peers, dataDir.resolve("c" + i)));
            others[i].start();
        }
        await().atMost(TIMEOUT).until(() -> others[1].isLeader() || others[2].isLeader());
        registry.add(
                "tributary.coordinator.data-dir", () -> dataDir.resolve("c0").toString());
        registry.add("tributary.coordinator.raft-port", () -> peers.get(0).getPort());
        registry.add(
                "tributary.coordinator.peers",
                () -> String.join(
                        ",",
                        peers.stream()
                                .map(p -> p.getHostString() + ":" + p.getPort())
                                .toList()));
        registry.add("tributary.coordinator.http-peers", () -> String.join(",", HTTP_PEERS));
        registry.add("tributary.coordinator.kafka-peers", () -> "127.0.0.1:9191,127.0.0.1:9192,127.0.0.1:9193");
        registry.add("tributary.kafka.port", () -> 0);
    }

    @AfterAll
    static void stopTheOthers() throws IOException {
        for (int i = 1; i < 3; i++) {
            if (others[i] != null) {
                others[i].close();
            }
        }
        TestCoordinators.deleteRecursively(dataDir);
    }

    @LocalServerPort
    int httpPort;

    @Autowired
    MetadataRaftNode node;

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void followingALeader() {
        await().atMost(TIMEOUT)
                .until(() -> node.leaderId().filter(l -> !l.equals("c0")).isPresent() && !node.isLeader());
    }

    private String leaderHttp() {
        return HTTP_PEERS.get(Integer.parseInt(node.leaderId().orElseThrow().substring(1)));
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void assertRedirectedToTheLeader(String path, String body) throws Exception {
        HttpResponse<String> response = post(path, body);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(307);
        assertThat(response.headers().firstValue("Location")).hasValue("http://" + leaderHttp() + path);
    }

    @Test
    void producerIdAllocationsAndCreatePartitionsAreRedirectedToTheLeader() throws Exception {
        assertRedirectedToTheLeader("/internal/v1/producer-ids", "{\"brokerId\":1,\"count\":1000}");
        assertRedirectedToTheLeader("/internal/v1/topics/orders/partitions", "{\"count\":6}");
    }

    @Test
    void theFollowerAppliesTheLeadersAllocations() throws Exception {
        try (MetadataClient client = new MetadataClient(MetadataRaftNode.group(peers))) {
            client.submit(Fixtures.register(1, 0, Optional.empty()));
            MetadataClient.ProducerIdBlock block = client.allocateProducerIds(1, 500);
            await().atMost(TIMEOUT)
                    .until(() -> node.stateMachine().image().nextProducerId() == block.firstProducerId() + 500);
        }
    }
}
