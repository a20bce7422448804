package io.tributary.coordinator.group;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.IntStream;

/** Builders of heartbeat requests for tests, as a kafka-clients 4.x consumer sends them. */
public final class Heartbeats {

    public static final String GROUP = "g";
    static final int REBALANCE_TIMEOUT_MS = 60_000;

    private Heartbeats() {}

    public static HeartbeatRequest join(String member, List<String> topics) {
        return join(member, topics, Optional.empty());
    }

    static HeartbeatRequest join(String member, List<String> topics, Optional<String> instanceId) {
        return new HeartbeatRequest(
                GROUP,
                member,
                0,
                instanceId,
                Optional.empty(),
                REBALANCE_TIMEOUT_MS,
                Optional.of(topics),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new TreeSet<>()),
                "client-" + member,
                "127.0.0.1");
    }

    static HeartbeatRequest beat(String member, int epoch, Collection<TopicIdPartition> owned) {
        return new HeartbeatRequest(
                GROUP,
                member,
                epoch,
                Optional.empty(),
                Optional.empty(),
                -1,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new TreeSet<>(owned)),
                "client-" + member,
                "127.0.0.1");
    }

    /** A heartbeat that does not say what the member owns (nothing changed since the last one). */
    static HeartbeatRequest beatUnchanged(String member, int epoch) {
        return new HeartbeatRequest(
                GROUP,
                member,
                epoch,
                Optional.empty(),
                Optional.empty(),
                -1,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "client-" + member,
                "127.0.0.1");
    }

    public static HeartbeatRequest leave(String member, int epoch, Optional<String> instanceId) {
        return new HeartbeatRequest(
                GROUP,
                member,
                epoch,
                instanceId,
                Optional.empty(),
                -1,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                "client-" + member,
                "127.0.0.1");
    }

    static SortedSet<TopicIdPartition> partitions(UUID topic, int... indexes) {
        SortedSet<TopicIdPartition> set = new TreeSet<>();
        for (int index : indexes) {
            set.add(new TopicIdPartition(topic, index));
        }
        return set;
    }

    static SortedSet<TopicIdPartition> all(UUID topic, int count) {
        return partitions(topic, IntStream.range(0, count).toArray());
    }

    static Set<TopicIdPartition> assignment(HeartbeatResponse response) {
        return response.assignment().orElseThrow(() -> new AssertionError("no assignment in " + response));
    }
}
