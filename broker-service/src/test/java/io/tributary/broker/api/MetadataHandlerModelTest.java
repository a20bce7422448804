package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.LongStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Metadata answers against random cluster images, one seed per case (in every failure message; pin it
 * in {@link #seeds()} to reproduce), checked against a model written from Kafka's rules: the brokers
 * are exactly the unfenced ones with a client endpoint; a partition has its leader only when that
 * leader is such a broker, else leader -1 and LEADER_NOT_AVAILABLE; offline replicas are the replicas
 * that are not such brokers; the controller is this broker when alive, else the lowest alive id.
 */
class MetadataHandlerModelTest {

    static LongStream seeds() {
        return LongStream.range(0, 60);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void answersFollowKafkasRulesForAnyImage(long seed) {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        ClusterImage image = randomImage(random);
        int self = random.nextInt(6);
        var handler = new MetadataHandler(
                FakeMetadataView.fixed(image, self), FakeControlPlane.withBrokers(0), AdminApiConfig.defaults());

        MetadataResponse response = Wire.call(handler, MetadataRequest.Builder.allTopics(), 12);

        String context = "seed " + seed + ", self " + self + ", image " + image;
        List<Integer> alive = image.brokers().values().stream()
                .filter(b -> !b.fenced() && b.endpoint("PLAINTEXT").isPresent())
                .map(BrokerInfo::id)
                .sorted()
                .toList();
        assertThat(response.data().brokers())
                .as(context)
                .extracting(MetadataResponseBroker::nodeId)
                .containsExactlyElementsOf(alive);
        int controller =
                alive.contains(self) ? self : alive.stream().findFirst().orElse(-1);
        assertThat(response.data().controllerId()).as(context).isEqualTo(controller);
        assertThat(response.data().topics()).as(context).hasSize(image.topics().size());
        for (MetadataResponseTopic topic : response.data().topics()) {
            TopicInfo expected = image.topic(topic.name()).orElseThrow();
            assertThat(topic.topicId()).as(context).isEqualTo(expected.id());
            assertThat(topic.partitions())
                    .as(context)
                    .hasSize(expected.partitions().size());
            for (MetadataResponsePartition p : topic.partitions()) {
                PartitionInfo model = expected.partitions().get(p.partitionIndex());
                boolean led = alive.contains(model.leader());
                assertThat(p.leaderId()).as(context).isEqualTo(led ? model.leader() : -1);
                assertThat(p.errorCode())
                        .as(context)
                        .isEqualTo(led ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code());
                assertThat(p.leaderEpoch()).as(context).isEqualTo(model.leaderEpoch());
                assertThat(p.replicaNodes()).as(context).containsExactlyElementsOf(model.replicas());
                assertThat(p.isrNodes()).as(context).containsExactlyElementsOf(model.isr());
                assertThat(p.offlineReplicas())
                        .as(context)
                        .containsExactlyElementsOf(model.replicas().stream()
                                .filter(r -> !alive.contains(r))
                                .toList());
            }
        }
    }

    /** Brokers 0..5 (each missing, fenced, or without a client endpoint at random); replicas drawn from 0..7. */
    private static ClusterImage randomImage(RandomGenerator random) {
        Map<Integer, BrokerInfo> brokers = new HashMap<>();
        for (int id = 0; id < 6; id++) {
            if (random.nextInt(5) == 0) {
                continue;
            }
            String listener = random.nextInt(6) == 0 ? "INTERNAL" : "PLAINTEXT";
            brokers.put(
                    id,
                    new BrokerInfo(
                            id,
                            new Uuid(random.nextLong(), random.nextLong()),
                            List.of(new BrokerEndpoint(listener, "h" + id, 9092 + id)),
                            null,
                            random.nextInt(4) == 0));
        }
        Map<String, TopicInfo> topics = new HashMap<>();
        int topicCount = random.nextInt(5);
        for (int t = 0; t < topicCount; t++) {
            List<PartitionInfo> partitions = new ArrayList<>();
            int partitionCount = 1 + random.nextInt(4);
            for (int p = 0; p < partitionCount; p++) {
                List<Integer> replicas = new ArrayList<>();
                int replicaCount = 1 + random.nextInt(3);
                while (replicas.size() < replicaCount) {
                    int r = random.nextInt(8);
                    if (!replicas.contains(r)) {
                        replicas.add(r);
                    }
                }
                int leader =
                        random.nextInt(4) == 0 ? PartitionInfo.NO_LEADER : replicas.get(random.nextInt(replicaCount));
                List<Integer> isr = replicas.subList(0, 1 + random.nextInt(replicaCount));
                partitions.add(new PartitionInfo(p, replicas, leader, random.nextInt(10), isr, random.nextInt(10)));
            }
            String name = "topic-" + t;
            topics.put(name, new TopicInfo(name, new Uuid(random.nextLong(), random.nextLong()), Map.of(), partitions));
        }
        return new ClusterImage(random.nextInt(1000), brokers, topics);
    }
}
