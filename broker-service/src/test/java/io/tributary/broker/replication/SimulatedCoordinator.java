package io.tributary.broker.replication;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * The coordinators' rules for brokers, leadership and the ISR of one partition, for {@link
 * ReplicationSimulationTest}: a model, because the broker's tests cannot use coordinator-service's
 * classes (a Spring Boot application module, and the broker must not depend on the coordinator's
 * code). Each method follows the coordinator's code it names, rule for rule:
 *
 * <ul>
 *   <li>{@link #register}: {@code MetadataImage.registerBroker}: a new incarnation of a broker that
 *       was not fenced fences the old one first ({@code withBrokerFenced}); a registration starts
 *       fenced.
 *   <li>{@link #heartbeat}: {@code BrokerLiveness.heartbeat}: only the registered incarnation; a
 *       fenced broker's heartbeat unfences it ({@code MetadataImage.unfenceBroker}: an offline
 *       partition whose ISR holds it gets it as leader).
 *   <li>{@link #tick}: {@code BrokerLiveness.tick}: a session starts when first seen; a broker
 *       silent for more than the session timeout is fenced ({@code withBrokerFenced}: it leaves the
 *       ISR unless it is the last member, and when it led, the first live replica in replica order
 *       that is in the ISR leads at the next leader epoch; none: offline; unclean election is off);
 *       a broker unfenced for the preferred-leader delay gets back the leadership it prefers when it
 *       is in the ISR ({@code ElectLeaders PREFERRED}).
 *   <li>{@link #alterPartition}: {@code MetadataImage.alterPartition}: refused as stale unless the
 *       leader and partition epochs and the leader id are the current ones; the ISR must hold the
 *       leader, be a set of replicas and name no fenced broker; committed in replica order.
 * </ul>
 *
 * Every change bumps the partition epoch ({@code PartitionState.change}); a leader change the
 * leader epoch; and every change the metadata version. Not thread-safe: the simulation's thread only.
 */
final class SimulatedCoordinator {

    static final int PORT_BASE = 20_000;

    private record Broker(int id, Uuid incarnation, boolean fenced) {}

    private record Session(Uuid incarnation, long lastHeartbeatMs) {}

    private final String topic;
    private final Uuid topicId;
    private final Map<String, String> configs;
    private final long sessionTimeoutMs;
    private final long preferredLeaderDelayMs;
    private final TreeMap<Integer, Broker> brokers = new TreeMap<>();
    private final Map<Integer, Session> sessions = new HashMap<>();
    private final Map<Integer, Long> unfencedSinceMs = new HashMap<>();
    private int fencings;
    private PartitionInfo partition;
    private long version = 1;
    private final List<String> changes = new ArrayList<>();

    /** A cluster whose brokers are registered, unfenced, and hold one partition on every broker. */
    SimulatedCoordinator(
            String topic,
            Uuid topicId,
            Map<String, String> configs,
            Map<Integer, Uuid> incarnations,
            long sessionTimeoutMs,
            long preferredLeaderDelayMs) {
        this.topic = topic;
        this.topicId = topicId;
        this.configs = Map.copyOf(configs);
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.preferredLeaderDelayMs = preferredLeaderDelayMs;
        incarnations.forEach((id, incarnation) -> brokers.put(id, new Broker(id, incarnation, false)));
        List<Integer> replicas = List.copyOf(brokers.keySet());
        partition = new PartitionInfo(0, replicas, replicas.getFirst(), 0, replicas, 0);
    }

    long version() {
        return version;
    }

    PartitionInfo partition() {
        return partition;
    }

    /** How many times an unfenced broker was fenced (its session expired, or it registered again). */
    int fencings() {
        return fencings;
    }

    /** The leader changes and ISR changes so far, in order (for failure messages). */
    List<String> changes() {
        return List.copyOf(changes);
    }

    boolean isLive(int id) {
        Broker b = brokers.get(id);
        return b != null && !b.fenced();
    }

    /** Whether {@code incarnation} is the registered incarnation of broker {@code id}, fenced. */
    boolean isFenced(int id, Uuid incarnation) {
        Broker b = brokers.get(id);
        return b == null || !b.incarnation().equals(incarnation) || b.fenced();
    }

    ClusterImage image() {
        Map<Integer, BrokerInfo> infos = new HashMap<>();
        for (Broker b : brokers.values()) {
            infos.put(
                    b.id(),
                    new BrokerInfo(
                            b.id(),
                            b.incarnation(),
                            List.of(new BrokerEndpoint("PLAINTEXT", "127.0.0.1", PORT_BASE + b.id())),
                            null,
                            b.fenced()));
        }
        return new ClusterImage(
                version, infos, Map.of(topic, new TopicInfo(topic, topicId, configs, List.of(partition))));
    }

    /** {@code registerBroker}; returns whether anything changed. */
    boolean register(int id, Uuid incarnation) {
        Broker old = brokers.get(id);
        if (old != null && old.incarnation().equals(incarnation)) {
            return false;
        }
        if (old != null && !old.fenced()) {
            withBrokerFenced(id);
            fencings++;
        }
        brokers.put(id, new Broker(id, incarnation, true));
        version++;
        return true;
    }

    /**
     * {@code BrokerLiveness.heartbeat} and the unfence it implies.
     *
     * @return false when {@code incarnation} is not the registered one (the broker must register)
     */
    boolean heartbeat(int id, Uuid incarnation, long nowMs) {
        Broker b = brokers.get(id);
        if (b == null || !b.incarnation().equals(incarnation)) {
            return false;
        }
        sessions.put(id, new Session(incarnation, nowMs));
        if (b.fenced()) {
            if (partition.leader() == PartitionInfo.NO_LEADER && partition.isr().contains(id)) {
                change(id, partition.isr(), "unfence " + id);
            }
            brokers.put(id, new Broker(id, incarnation, false));
            version++;
        }
        return true;
    }

    /** {@code BrokerLiveness.tick} and the commands it returns, applied in order. */
    void tick(long nowMs) {
        List<Integer> expired = new ArrayList<>();
        for (Broker b : List.copyOf(brokers.values())) {
            Session session = sessions.get(b.id());
            if (session == null || !session.incarnation().equals(b.incarnation())) {
                session = new Session(b.incarnation(), nowMs);
                sessions.put(b.id(), session);
            }
            if (b.fenced()) {
                unfencedSinceMs.remove(b.id());
                continue;
            }
            unfencedSinceMs.putIfAbsent(b.id(), nowMs);
            if (session.lastHeartbeatMs() + sessionTimeoutMs < nowMs) {
                expired.add(b.id());
            }
        }
        int preferred = partition.replicas().getFirst();
        boolean elect = partition.leader() != preferred
                && partition.isr().contains(preferred)
                && isLive(preferred)
                && unfencedSinceMs.containsKey(preferred)
                && unfencedSinceMs.get(preferred) + preferredLeaderDelayMs <= nowMs
                && !expired.contains(preferred);
        for (int id : expired) {
            Broker b = brokers.get(id);
            withBrokerFenced(id);
            fencings++;
            brokers.put(id, new Broker(id, b.incarnation(), true));
            version++;
        }
        if (elect && partition.isr().contains(preferred) && isLive(preferred) && partition.leader() != preferred) {
            change(preferred, partition.isr(), "preferred election of " + preferred);
            version++;
        }
    }

    /** {@code MetadataImage.alterPartition}; the answer is what the control plane returns. */
    ControlPlane.PartitionWrite alterPartition(int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
        PartitionInfo p = partition;
        if (leaderEpoch != p.leaderEpoch() || partitionEpoch != p.partitionEpoch()) {
            throw new ControlPlaneException(
                    ControlPlaneException.Kind.STALE_EPOCH,
                    "proposed at leader epoch %d, partition epoch %d; current are %d, %d"
                            .formatted(leaderEpoch, partitionEpoch, p.leaderEpoch(), p.partitionEpoch()));
        }
        if (leaderId != p.leader()) {
            throw new ControlPlaneException(
                    ControlPlaneException.Kind.STALE_EPOCH,
                    "broker %d is not the leader (%d is)".formatted(leaderId, p.leader()));
        }
        if (!isr.contains(p.leader())) {
            throw new ControlPlaneException(
                    ControlPlaneException.Kind.INVALID_REQUEST, "the new ISR " + isr + " leaves out the leader");
        }
        if (isr.stream().distinct().count() != isr.size() || !p.replicas().containsAll(isr)) {
            throw new ControlPlaneException(
                    ControlPlaneException.Kind.INVALID_REQUEST, "the new ISR " + isr + " is not a set of replicas");
        }
        for (int r : isr) {
            if (!isLive(r)) {
                throw new ControlPlaneException(
                        ControlPlaneException.Kind.INVALID_REQUEST,
                        "broker " + r + " is fenced and cannot join the ISR");
            }
        }
        if (change(p.leader(), isr, "AlterPartition from " + leaderId)) {
            version++;
        }
        return new ControlPlane.PartitionWrite(version, topic, partition);
    }

    /** {@code withBrokerFenced}: the broker leaves the ISR (unless last) and its leadership moves. */
    private void withBrokerFenced(int id) {
        PartitionInfo p = partition;
        if (!p.isr().contains(id) && p.leader() != id) {
            return;
        }
        List<Integer> isr = new ArrayList<>(p.isr());
        isr.remove(Integer.valueOf(id));
        if (isr.isEmpty()) {
            isr = p.isr(); // the last ISR member stays: it is the one with all the data
        }
        int leader = p.leader();
        if (leader == id || leader == PartitionInfo.NO_LEADER) {
            leader = PartitionInfo.NO_LEADER;
            for (int r : p.replicas()) {
                if (r != id && isr.contains(r) && isLive(r)) {
                    leader = r;
                    break;
                }
            }
        }
        change(leader, isr, "fence " + id);
    }

    /** {@code PartitionState.change}: whether anything changed. */
    private boolean change(int leader, List<Integer> isr, String why) {
        PartitionInfo p = partition;
        List<Integer> ordered = p.replicas().stream().filter(isr::contains).toList();
        boolean leaderChanged = leader != p.leader();
        if (!leaderChanged && ordered.equals(p.isr())) {
            return false;
        }
        partition = new PartitionInfo(
                p.partition(),
                p.replicas(),
                leader,
                leaderChanged ? p.leaderEpoch() + 1 : p.leaderEpoch(),
                ordered,
                p.partitionEpoch() + 1);
        changes.add(why + ": leader " + partition.leader() + " epoch " + partition.leaderEpoch() + " ISR "
                + partition.isr() + " partition epoch " + partition.partitionEpoch());
        return true;
    }
}
