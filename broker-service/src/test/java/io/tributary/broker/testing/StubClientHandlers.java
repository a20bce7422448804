package io.tributary.broker.testing;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * Stand-ins for the Metadata and InitProducerId handlers, so that tests can point real Kafka
 * clients at a listener serving only the data path (the real handlers belong to other services).
 */
public final class StubClientHandlers {

    private StubClientHandlers() {}

    /**
     * Metadata from an image: its unfenced brokers with an endpoint (the first one), the requested
     * topics (every topic for a null list) with their leaders, epochs, replicas and ISR; an unknown
     * topic is UNKNOWN_TOPIC_OR_PARTITION.
     */
    public static final class Metadata implements RequestHandler {
        private final String clusterId;
        private final int controllerId;
        private final Supplier<ClusterImage> image;

        public Metadata(String clusterId, int controllerId, Supplier<ClusterImage> image) {
            this.clusterId = clusterId;
            this.controllerId = controllerId;
            this.image = image;
        }

        @Override
        public ApiVersionRange versions() {
            return ApiVersionRange.of(ApiKeys.METADATA, 1, 12);
        }

        @Override
        public MetadataResponse handle(KafkaRequest request) {
            MetadataRequestData data = request.body(MetadataRequest.class).data();
            ClusterImage image = this.image.get();
            var response = new MetadataResponseData().setClusterId(clusterId).setControllerId(controllerId);
            for (BrokerInfo info : image.brokers().values()) {
                if (info.fenced() || info.endpoints().isEmpty()) {
                    continue;
                }
                BrokerEndpoint endpoint = info.endpoints().getFirst();
                response.brokers()
                        .add(new MetadataResponseData.MetadataResponseBroker()
                                .setNodeId(info.id())
                                .setHost(endpoint.host())
                                .setPort(endpoint.port()));
            }
            List<String> names = data.topics() == null
                    ? List.copyOf(image.topics().keySet())
                    : data.topics().stream()
                            .map(MetadataRequestData.MetadataRequestTopic::name)
                            .toList();
            for (String name : names) {
                TopicInfo topic = image.topics().get(name);
                var topicResponse = new MetadataResponseData.MetadataResponseTopic().setName(name);
                if (topic == null) {
                    topicResponse.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else {
                    topicResponse.setTopicId(topic.id());
                    for (PartitionInfo partition : topic.partitions()) {
                        topicResponse
                                .partitions()
                                .add(new MetadataResponseData.MetadataResponsePartition()
                                        .setPartitionIndex(partition.partition())
                                        .setLeaderId(partition.leader())
                                        .setLeaderEpoch(partition.leaderEpoch())
                                        .setReplicaNodes(partition.replicas())
                                        .setIsrNodes(partition.isr()));
                    }
                }
                response.topics().add(topicResponse);
            }
            return new MetadataResponse(response, request.header().apiVersion());
        }
    }

    /** Hands out one producer id (31337, epoch 0) to every caller: one producer per test. */
    public static final class InitProducerId implements RequestHandler {
        @Override
        public ApiVersionRange versions() {
            return ApiVersionRange.of(ApiKeys.INIT_PRODUCER_ID, 0, ApiKeys.INIT_PRODUCER_ID.latestVersion());
        }

        @Override
        public InitProducerIdResponse handle(KafkaRequest request) {
            return new InitProducerIdResponse(
                    new InitProducerIdResponseData().setProducerId(31_337).setProducerEpoch((short) 0));
        }
    }
}
