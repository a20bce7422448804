package io.tributary.coordinator.api;

import io.tributary.coordinator.metadata.Broker;
import io.tributary.coordinator.metadata.Endpoint;
import io.tributary.coordinator.metadata.PartitionState;
import io.tributary.coordinator.metadata.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The JSON bodies of the control plane (documented in {@code docs/control-plane.md}). Request
 * fields are boxed or nullable so that a missing one is a 400, not a silent zero.
 */
final class ControlDtos {

    private ControlDtos() {}

    record EndpointJson(String listener, String host, Integer port) {
        static EndpointJson of(Endpoint e) {
            return new EndpointJson(e.listener(), e.host(), e.port());
        }
    }

    record RegisterBrokerRequest(Integer brokerId, UUID incarnationId, List<EndpointJson> endpoints, String rack) {}

    record HeartbeatRequest(UUID incarnationId) {}

    record AlterPartitionRequest(Integer leaderId, Integer leaderEpoch, Integer partitionEpoch, List<Integer> isr) {}

    record CreateTopicRequest(
            String name, Integer partitions, Integer replicationFactor, Map<String, String> configs) {}

    record AlterConfigsRequest(Map<String, String> set, List<String> remove) {}

    /** CreatePartitions: the topic's new total partition count. */
    record CreatePartitionsRequest(Integer count) {}

    record AllocateProducerIdsRequest(Integer brokerId, Integer count) {}

    /** The producer ids {@code [firstProducerId, firstProducerId + count)}, now the broker's own. */
    record ProducerIdsJson(long version, long firstProducerId, int count) {}

    /** The answer to a write: the metadata version that includes it. */
    record VersionJson(long version) {}

    record BrokerJson(
            int id,
            UUID incarnationId,
            List<EndpointJson> endpoints,
            String rack,
            boolean fenced,
            long registeredAtMs) {
        static BrokerJson of(Broker b) {
            return new BrokerJson(
                    b.id(),
                    b.incarnationId(),
                    b.endpoints().stream().map(EndpointJson::of).toList(),
                    b.rack().orElse(null),
                    b.fenced(),
                    b.registeredAtMs());
        }
    }

    record PartitionJson(
            int partition, List<Integer> replicas, int leader, int leaderEpoch, List<Integer> isr, int partitionEpoch) {
        static PartitionJson of(int index, PartitionState p) {
            return new PartitionJson(index, p.replicas(), p.leader(), p.leaderEpoch(), p.isr(), p.partitionEpoch());
        }
    }

    record TopicJson(String name, UUID id, Map<String, String> configs, List<PartitionJson> partitions) {
        static TopicJson of(Topic t) {
            List<PartitionJson> partitions = new ArrayList<>();
            for (int i = 0; i < t.partitions().size(); i++) {
                partitions.add(PartitionJson.of(i, t.partitions().get(i)));
            }
            return new TopicJson(t.name(), t.id(), t.configs(), partitions);
        }
    }

    /** A write that was applied, with the version that includes it and the topic as it is now. */
    record TopicWriteJson(long version, TopicJson topic) {}

    record PartitionWriteJson(long version, String topic, PartitionJson partition) {}

    record MetadataJson(
            long version, boolean full, List<BrokerJson> brokers, List<TopicJson> topics, List<String> deletedTopics) {
        static MetadataJson of(MetadataHistory.Changes c) {
            return new MetadataJson(
                    c.version(),
                    c.full(),
                    c.brokers().stream().map(BrokerJson::of).toList(),
                    c.topics().stream().map(TopicJson::of).toList(),
                    c.deletedTopics());
        }
    }

    record CoordinatorJson(int id, String httpAddress, String raftAddress, String kafkaAddress, boolean leader) {}

    record ClusterJson(long version, Integer leaderId, List<CoordinatorJson> coordinators, List<BrokerJson> brokers) {}

    record TopicsJson(long version, List<TopicJson> topics) {}
}
