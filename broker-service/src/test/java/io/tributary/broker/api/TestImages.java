package io.tributary.broker.api;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * A fixed cluster image with every case the metadata handlers distinguish.
 *
 * <p>Brokers: 0 and 1 alive with a PLAINTEXT endpoint; 2 fenced; 3 alive but with an INTERNAL
 * endpoint only (not usable by clients). Topic {@code orders} (3 partitions): p0 led by 0 with one
 * replica on unknown broker 9; p1 without a leader; p2 led by fenced broker 2. Topic {@code events}
 * (1 partition led by 1, override {@code retention.ms=3600000}).
 */
final class TestImages {

    static final Uuid ORDERS_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    static final Uuid EVENTS_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");
    static final long VERSION = 42;

    private TestImages() {}

    static ClusterImage cluster() {
        Map<Integer, BrokerInfo> brokers = Map.of(
                0, broker(0, "PLAINTEXT", 9092, false),
                1, broker(1, "PLAINTEXT", 9093, false),
                2, broker(2, "PLAINTEXT", 9094, true),
                3, broker(3, "INTERNAL", 9095, false));
        TopicInfo orders = new TopicInfo(
                "orders",
                ORDERS_ID,
                Map.of(),
                List.of(
                        new PartitionInfo(0, List.of(0, 1, 9), 0, 5, List.of(0, 1), 8),
                        new PartitionInfo(1, List.of(1, 0), PartitionInfo.NO_LEADER, 3, List.of(), 4),
                        new PartitionInfo(2, List.of(2, 0), 2, 7, List.of(2, 0), 9)));
        TopicInfo events = new TopicInfo(
                "events",
                EVENTS_ID,
                Map.of("retention.ms", "3600000"),
                List.of(new PartitionInfo(0, List.of(1), 1, 0, List.of(1), 0)));
        return new ClusterImage(VERSION, brokers, Map.of("orders", orders, "events", events));
    }

    static BrokerInfo broker(int id, String listener, int port, boolean fenced) {
        return new BrokerInfo(
                id, Uuid.randomUuid(), List.of(new BrokerEndpoint(listener, "host-" + id, port)), "rack-" + id, fenced);
    }
}
