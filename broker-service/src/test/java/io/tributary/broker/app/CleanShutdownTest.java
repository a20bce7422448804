package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.log.index.PartitionState;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.testing.FixedMetadataView;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/** Closing the application closes every partition log cleanly, so the next start does not rescan. */
class CleanShutdownTest {

    static final Uuid TOPIC_ID = new Uuid(77, 77);
    static final ClusterImage IMAGE = FixedMetadataView.image(
            1,
            List.of(FixedMetadataView.broker(0, 9092)),
            List.of(FixedMetadataView.topic("kept", TOPIC_ID, 2, List.of(0), 0, Map.of())));

    @TestConfiguration(proxyBeanMethods = false)
    static class OneTopic {
        @Bean
        @Primary
        MetadataView oneTopicView() {
            return new FixedMetadataView(0, IMAGE);
        }
    }

    @TempDir
    Path dir;

    @Test
    void closingTheApplicationMarksEveryLogCleanlyShutDown() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
                        BrokerApplication.class, OneTopic.class)
                .web(WebApplicationType.NONE)
                .run(
                        "--tributary.kafka.port=0",
                        "--tributary.broker.data-dir=" + dir,
                        "--tributary.broker.coordinators=127.0.0.1:1")) {
            ReplicaManager replicas = context.getBean(ReplicaManager.class);
            replicas.onImage(ClusterImage.EMPTY, IMAGE);
            replicas.partition("kept", 0)
                    .orElseThrow()
                    .appendAsLeader(MemoryRecords.withRecords(
                            Compression.NONE, new SimpleRecord("x".getBytes(StandardCharsets.US_ASCII))));
        }

        try (IndexStore store = IndexStore.open(dir.resolve("index"))) {
            for (int partition = 0; partition < 2; partition++) {
                assertThat(store.partition(TOPIC_ID, partition).readState())
                        .hasValueSatisfying(
                                state -> assertThat(state.shutdown()).isEqualTo(PartitionState.Shutdown.CLEAN));
            }
            assertThat(store.partition(TOPIC_ID, 0).readState().orElseThrow().recoveryPoint())
                    .isEqualTo(1);
        }
    }
}
