package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.testing.FixedMetadataView;
import io.tributary.common.app.KafkaListenerLifecycle;
import io.tributary.common.security.acl.ApiAccess;
import io.tributary.common.testing.KafkaTestConnection;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * The data path as the application wires it: the replica manager follows an image, and the Kafka
 * listener serves Produce and Fetch for it; the broker's meters see the partition and the bytes.
 */
@SpringBootTest(
        properties = {
            "tributary.kafka.port=0",
            "tributary.broker.id=0",
            "tributary.broker.data-dir=target/test-data/data-path-wiring",
            // No coordinator in this test: port 1 refuses, so the follower never registers anywhere.
            "tributary.broker.coordinators=127.0.0.1:1"
        })
class DataPathWiringTest {

    static final Uuid TOPIC_ID = Uuid.randomUuid();
    static final ClusterImage IMAGE = FixedMetadataView.image(
            1,
            List.of(FixedMetadataView.broker(0, 9092), FixedMetadataView.broker(1, 9093)),
            List.of(new TopicInfo(
                    "wired", TOPIC_ID, Map.of(), List.of(new PartitionInfo(0, List.of(0, 1), 0, 0, List.of(0), 0)))));

    @TestConfiguration(proxyBeanMethods = false)
    static class OneTopic {
        @Bean
        @Primary
        MetadataView oneTopicView() {
            return new FixedMetadataView(0, IMAGE);
        }
    }

    @Autowired
    ReplicaManager replicaManager;

    @Autowired
    KafkaListenerLifecycle listener;

    @Autowired
    MeterRegistry registry;

    @Test
    void everyApiTheListenerServesHasAnAccessRule() throws Exception {
        try (var connection = KafkaTestConnection.open(listener.server().port())) {
            var served = connection.apiVersions().data().apiKeys();
            assertThat(served).hasSizeGreaterThan(20);
            assertThat(served)
                    .allSatisfy(api -> assertThat(ApiAccess.of(ApiKeys.forId(api.apiKey())))
                            .as("the access rule of %s", ApiKeys.forId(api.apiKey()))
                            .isPresent());
        }
    }

    @Test
    void producesAndFetchesThroughTheListener() throws Exception {
        replicaManager.onImage(ClusterImage.EMPTY, IMAGE);
        long endBefore =
                replicaManager.partition("wired", 0).orElseThrow().log().logEndOffset();

        try (var connection = KafkaTestConnection.open(listener.server().port())) {
            var topicData = new ProduceRequestData.TopicProduceData().setName("wired");
            topicData
                    .partitionData()
                    .add(new ProduceRequestData.PartitionProduceData()
                            .setIndex(0)
                            .setRecords(MemoryRecords.withRecords(
                                    Compression.NONE, new SimpleRecord("hello".getBytes(StandardCharsets.US_ASCII)))));
            var topics = new ProduceRequestData.TopicProduceDataCollection();
            topics.add(topicData);
            var produced = connection.roundTrip(
                    new ProduceRequest(
                            new ProduceRequestData()
                                    .setAcks((short) -1)
                                    .setTimeoutMs(10_000)
                                    .setTopicData(topics),
                            (short) 11),
                    ProduceResponse.class);
            var fetchTopic = new FetchRequestData.FetchTopic().setTopicId(TOPIC_ID);
            fetchTopic
                    .partitions()
                    .add(new FetchRequestData.FetchPartition()
                            .setPartition(0)
                            .setFetchOffset(endBefore)
                            .setPartitionMaxBytes(1 << 20));
            var fetched = connection.roundTrip(
                    new FetchRequest(
                            new FetchRequestData()
                                    .setReplicaId(-1)
                                    .setMaxWaitMs(0)
                                    .setMinBytes(0)
                                    .setSessionEpoch(-1)
                                    .setTopics(List.of(fetchTopic)),
                            (short) 13),
                    FetchResponse.class);

            var partition = produced.data()
                    .responses()
                    .iterator()
                    .next()
                    .partitionResponses()
                    .getFirst();
            assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.NONE);
            assertThat(partition.baseOffset()).isEqualTo(endBefore);
            var data = fetched.data().responses().getFirst().partitions().getFirst();
            assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.NONE);
            assertThat(data.highWatermark()).isEqualTo(endBefore + 1);
        }
        assertThat(registry.get("tributary.broker.partitions")
                        .tag("role", "leader")
                        .gauge()
                        .value())
                .isEqualTo(1);
        assertThat(registry.get("tributary.broker.partitions.under.replicated")
                        .gauge()
                        .value())
                .isEqualTo(1);
        assertThat(registry.get("tributary.broker.messages.in").counter().count())
                .isGreaterThanOrEqualTo(1);
        // Replication is wired: broker 0 leads the only partition, so it fetches from nobody.
        assertThat(registry.get("tributary.broker.replica.fetchers").gauge().value())
                .isZero();
        assertThat(registry.get("tributary.broker.isr.changes")
                        .tag("kind", "shrink")
                        .counter()
                        .count())
                .isZero();
    }
}
