package io.tributary.broker.testing;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/** A {@link MetadataView} over an image the test sets, standing in for the metadata follower. */
public final class FixedMetadataView implements MetadataView {

    private final int brokerId;
    private volatile ClusterImage image;
    private volatile boolean active = true;

    public FixedMetadataView(int brokerId, ClusterImage image) {
        this.brokerId = brokerId;
        this.image = image;
    }

    @Override
    public ClusterImage image() {
        return image;
    }

    public void setImage(ClusterImage next) {
        image = next;
    }

    public void setActive(boolean value) {
        active = value;
    }

    @Override
    public boolean awaitVersion(long version, Duration timeout) {
        return image.version() >= version;
    }

    @Override
    public int brokerId() {
        return brokerId;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    /** A broker with one PLAINTEXT endpoint on 127.0.0.1. */
    public static BrokerInfo broker(int id, int port) {
        return new BrokerInfo(
                id, Uuid.randomUuid(), List.of(new BrokerEndpoint("PLAINTEXT", "127.0.0.1", port)), null, false);
    }

    /** A topic whose every partition has {@code replicas}, led by the first at {@code leaderEpoch}. */
    public static TopicInfo topic(
            String name,
            Uuid id,
            int partitions,
            List<Integer> replicas,
            int leaderEpoch,
            Map<String, String> configs) {
        List<PartitionInfo> infos = new java.util.ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            infos.add(new PartitionInfo(i, replicas, replicas.getFirst(), leaderEpoch, replicas, leaderEpoch));
        }
        return new TopicInfo(name, id, configs, infos);
    }

    /** An image of {@code brokers} and {@code topics} at {@code version}. */
    public static ClusterImage image(long version, List<BrokerInfo> brokers, List<TopicInfo> topics) {
        Map<Integer, BrokerInfo> byId = new HashMap<>();
        brokers.forEach(b -> byId.put(b.id(), b));
        Map<String, TopicInfo> byName = new HashMap<>();
        topics.forEach(t -> byName.put(t.name(), t));
        return new ClusterImage(version, byId, byName);
    }
}
