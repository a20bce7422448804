package io.tributary.coordinator.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.testing.TestCoordinators;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** A one-voter coordinator process: Raft starts with the application and the metrics show it. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class CoordinatorApplicationTest {

    private static Path dataDir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws IOException {
        dataDir = TestCoordinators.oneVoter(registry, "coordinator-test");
    }

    @AfterAll
    static void deleteDataDir() throws IOException {
        TestCoordinators.deleteRecursively(dataDir);
    }

    @LocalServerPort
    int httpPort;

    @Autowired
    MetadataRaftNode node;

    @Autowired
    MetadataClient client;

    @Autowired
    io.tributary.coordinator.group.OffsetStore offsetStore;

    private String get(String path) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(path).isEqualTo(200);
            return response.body();
        }
    }

    private String prometheus() throws IOException, InterruptedException {
        return get("/actuator/prometheus");
    }

    @Test
    void theSingleVoterLeadsTakesWritesAndReportsItsMetadataMetrics() throws Exception {
        await().atMost(Duration.ofSeconds(20)).until(node::isLeader);

        long version = client.submit(Fixtures.register(1, 0, Optional.of("r1")));

        assertThat(version).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(prometheus())
                        .contains("tributary_metadata_version{instance=\"coordinator-0\",service=\"coordinator\"} 1.0")
                        .containsPattern("tributary_metadata_brokers\\{.*state=\"fenced\".*\\} 1\\.0")
                        .containsPattern("tributary_metadata_brokers\\{.*state=\"live\".*\\} 0\\.0")
                        .containsPattern("tributary_metadata_partitions_offline\\{.*\\} 0\\.0")
                        .containsPattern("tributary_metadata_raft_role\\{.*role=\"leader\".*\\} 1\\.0")
                        .containsPattern("tributary_metadata_raft_role\\{.*role=\"follower\".*\\} 0\\.0")
                        .containsPattern("tributary_metadata_raft_commit_index\\{.*\\} [1-9]")
                        .containsPattern(
                                "tributary_metadata_raft_write_seconds_count\\{.*outcome=\"committed\".*\\} [1-9]")
                        .containsPattern(
                                "tributary_metadata_raft_write_seconds_bucket\\{.*outcome=\"committed\".*\\} [1-9]")
                        .containsPattern("tributary_group_offsets_expired_total\\{.*\\} 0\\.0"));
        assertThat(get("/actuator/health/metadataRaft"))
                .contains("\"status\":\"UP\"")
                .contains("\"role\":\"LEADER\"")
                .contains("\"leader\":\"c0\"")
                .contains("\"metadataVersion\":1");

        assertThat(client.allocateProducerIds(1, 25).firstProducerId()).isZero();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(prometheus())
                        .containsPattern("tributary_metadata_producer_ids_allocated\\{.*\\} 25\\.0"));
    }

    @Test
    void theOffsetStoreBeanCommitsThroughRaftAndReadsItBack() throws Exception {
        await().atMost(Duration.ofSeconds(20)).until(node::isLeader);
        client.submit(Fixtures.register(7, 0, Optional.empty()));
        client.submit(
                new io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker(7, Fixtures.incarnation(7, 0)));
        client.submit(Fixtures.createTopic("app-offsets", java.util.List.of(java.util.List.of(7))));
        var tp = new io.tributary.coordinator.metadata.TopicPartition("app-offsets", 0);
        var offset = new io.tributary.coordinator.group.OffsetStore.CommittedOffset(5, 0, "meta", 1_000);

        offsetStore.commit("app-group", java.util.Map.of(tp, offset));

        assertThat(offsetStore).isInstanceOf(io.tributary.coordinator.metadata.raft.RaftOffsetStore.class);
        assertThat(offsetStore.fetch("app-group")).containsExactly(java.util.Map.entry(tp, offset));
        assertThat(offsetStore.groups()).contains("app-group");
    }
}
