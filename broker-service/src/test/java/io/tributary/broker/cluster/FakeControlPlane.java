package io.tributary.broker.cluster;

import io.tributary.broker.cluster.ControlPlaneException.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.Uuid;

/**
 * An in-memory coordinator with the rules the broker relies on: a registration is fenced until its
 * first heartbeat, a heartbeat from an old incarnation is {@code STALE_EPOCH}, every change bumps
 * the version, and the metadata long poll parks until a newer version or its wait ends. Tests can
 * cut it off ({@link #partition}), fence a broker, forget one, or start over from version 0.
 */
public final class FakeControlPlane implements ControlPlane {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long version;
    private final Map<Integer, BrokerInfo> brokers = new TreeMap<>();
    private final Map<String, TopicInfo> topics = new TreeMap<>();
    private final Map<Integer, Long> brokerChangedAt = new HashMap<>();
    private final Map<String, Long> topicChangedAt = new HashMap<>();
    private volatile boolean partitioned;
    private volatile boolean heartbeatsLost;
    private final AtomicInteger registrations = new AtomicInteger();
    private final AtomicInteger heartbeats = new AtomicInteger();
    private final AtomicInteger callsInFlight = new AtomicInteger();
    private final AtomicInteger alterPartitions = new AtomicInteger();
    /** Brokers whose incarnation asked for a controlled shutdown (their heartbeats do not unfence). */
    private final Map<Integer, Uuid> shuttingDown = new HashMap<>();

    private final AtomicInteger heartbeatsAfterShutdown = new AtomicInteger();
    private volatile Runnable onShutdown = () -> {};

    private volatile java.util.Optional<GroupCoordinator> groupCoordinator = java.util.Optional.empty();
    private ScramUsers scramCredentials = ScramUsers.EMPTY;
    private long scramChangedAt = -1;
    private ClusterAcls acls = ClusterAcls.EMPTY;
    private long aclsChangedAt = -1;
    private final AtomicInteger groupCoordinatorLookups = new AtomicInteger();

    // ---- test controls

    /** Replaces the stored ACLs (one metadata version, as the coordinators' write); returns it. */
    public long acls(ClusterAcls next) {
        lock.lock();
        try {
            acls = next;
            version++;
            aclsChangedAt = version;
            changed.signalAll();
            return version;
        } finally {
            lock.unlock();
        }
    }

    /** Replaces the stored SCRAM credentials (one metadata version, as the coordinators' write); returns it. */
    public long scramCredentials(ScramUsers users) {
        lock.lock();
        try {
            scramCredentials = users;
            version++;
            scramChangedAt = version;
            changed.signalAll();
            return version;
        } finally {
            lock.unlock();
        }
    }

    /** The coordinators' leader's Kafka endpoint from now on (empty: no leader). */
    public void groupCoordinator(java.util.Optional<GroupCoordinator> coordinator) {
        groupCoordinator = coordinator;
    }

    /** How often {@link #groupCoordinator()} was called. */
    public int groupCoordinatorLookups() {
        return groupCoordinatorLookups.get();
    }

    @Override
    public java.util.Optional<GroupCoordinator> groupCoordinator() {
        groupCoordinatorLookups.incrementAndGet();
        if (partitioned) {
            throw new ControlPlaneException(Kind.UNAVAILABLE, "partitioned from the coordinators");
        }
        return groupCoordinator;
    }

    /** While true, every call fails UNAVAILABLE (the broker cannot reach any coordinator). */
    public void partition(boolean cutOff) {
        partitioned = cutOff;
    }

    /** While true, heartbeats fail UNAVAILABLE; the other calls work. */
    public void partitionHeartbeatsOnly(boolean lost) {
        heartbeatsLost = lost;
    }

    /** What the liveness loop does after a missed session: the broker is fenced. */
    public void fence(int brokerId) {
        lock.lock();
        try {
            BrokerInfo b = brokers.get(brokerId);
            brokers.put(brokerId, new BrokerInfo(b.id(), b.incarnationId(), b.endpoints(), b.rack(), true));
            bump(brokerId);
        } finally {
            lock.unlock();
        }
    }

    /** The coordinators lose their state and start over at version 0 with nothing. */
    public void startOver() {
        lock.lock();
        try {
            version = 0;
            brokers.clear();
            topics.clear();
            brokerChangedAt.clear();
            topicChangedAt.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public BrokerInfo broker(int id) {
        lock.lock();
        try {
            return brokers.get(id);
        } finally {
            lock.unlock();
        }
    }

    public int registrations() {
        return registrations.get();
    }

    public int heartbeats() {
        return heartbeats.get();
    }

    /** Heartbeats received from an incarnation after it asked for its controlled shutdown. */
    public int heartbeatsAfterShutdown() {
        return heartbeatsAfterShutdown.get();
    }

    /** The incarnation of {@code brokerId} that asked for a controlled shutdown, if any. */
    public java.util.Optional<Uuid> shutdownOf(int brokerId) {
        lock.lock();
        try {
            return java.util.Optional.ofNullable(shuttingDown.get(brokerId));
        } finally {
            lock.unlock();
        }
    }

    /** Runs (on the request's thread, before answering) when a controlled shutdown arrives. */
    public void onShutdown(Runnable action) {
        onShutdown = action;
    }

    public int callsInFlight() {
        return callsInFlight.get();
    }

    // ---- ControlPlane

    @Override
    public long register(int brokerId, Uuid incarnationId, String rack, List<BrokerEndpoint> endpoints) {
        return call(() -> {
            registrations.incrementAndGet();
            BrokerInfo old = brokers.get(brokerId);
            if (old != null && old.incarnationId().equals(incarnationId)) {
                return version;
            }
            brokers.put(brokerId, new BrokerInfo(brokerId, incarnationId, endpoints, rack, true));
            return bump(brokerId);
        });
    }

    @Override
    public long heartbeat(int brokerId, Uuid incarnationId) {
        return call(() -> {
            heartbeats.incrementAndGet();
            if (heartbeatsLost) {
                throw new ControlPlaneException(Kind.UNAVAILABLE, "the heartbeat was lost");
            }
            BrokerInfo b = brokers.get(brokerId);
            if (b == null) {
                throw new ControlPlaneException(Kind.UNKNOWN_BROKER, "broker " + brokerId + " is not registered");
            }
            if (!b.incarnationId().equals(incarnationId)) {
                throw new ControlPlaneException(Kind.STALE_EPOCH, "stale incarnation " + incarnationId);
            }
            if (incarnationId.equals(shuttingDown.get(brokerId))) {
                heartbeatsAfterShutdown.incrementAndGet();
                return version;
            }
            if (b.fenced()) {
                brokers.put(brokerId, new BrokerInfo(b.id(), b.incarnationId(), b.endpoints(), b.rack(), false));
                bump(brokerId);
            }
            return version;
        });
    }

    /**
     * The coordinators' controlled shutdown: the incarnation is fenced at once (here only the broker
     * record; this fake elects no leaders) and its later heartbeats do not unfence it.
     */
    @Override
    public long shutdown(int brokerId, Uuid incarnationId, Duration timeout) {
        onShutdown.run();
        return call(() -> {
            BrokerInfo b = brokers.get(brokerId);
            if (b == null) {
                throw new ControlPlaneException(Kind.UNKNOWN_BROKER, "broker " + brokerId + " is not registered");
            }
            if (!b.incarnationId().equals(incarnationId)) {
                throw new ControlPlaneException(Kind.STALE_EPOCH, "stale incarnation " + incarnationId);
            }
            shuttingDown.put(brokerId, incarnationId);
            if (b.fenced()) {
                return version;
            }
            brokers.put(brokerId, new BrokerInfo(b.id(), b.incarnationId(), b.endpoints(), b.rack(), true));
            return bump(brokerId);
        });
    }

    @Override
    public MetadataDelta fetchMetadata(OptionalLong after, Duration maxWait) {
        return call(() -> {
            if (after.isEmpty()) {
                return new MetadataDelta(
                        version,
                        true,
                        List.copyOf(brokers.values()),
                        List.copyOf(topics.values()),
                        List.of(),
                        java.util.Optional.of(scramCredentials),
                        java.util.Optional.of(acls));
            }
            long remaining = maxWait.toNanos();
            while (version <= after.getAsLong() && remaining > 0) {
                try {
                    remaining = changed.awaitNanos(remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ControlPlaneException(Kind.UNAVAILABLE, "interrupted");
                }
            }
            long since = after.getAsLong();
            List<BrokerInfo> changedBrokers = new ArrayList<>();
            brokerChangedAt.forEach((id, v) -> {
                if (v > since && brokers.containsKey(id)) {
                    changedBrokers.add(brokers.get(id));
                }
            });
            List<TopicInfo> changedTopics = new ArrayList<>();
            List<String> deleted = new ArrayList<>();
            topicChangedAt.forEach((name, v) -> {
                if (v > since) {
                    if (topics.containsKey(name)) {
                        changedTopics.add(topics.get(name));
                    } else {
                        deleted.add(name);
                    }
                }
            });
            return new MetadataDelta(
                    version,
                    false,
                    changedBrokers,
                    changedTopics,
                    deleted,
                    scramChangedAt > since ? java.util.Optional.of(scramCredentials) : java.util.Optional.empty(),
                    aclsChangedAt > since ? java.util.Optional.of(acls) : java.util.Optional.empty());
        });
    }

    @Override
    public TopicWrite createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        return call(() -> {
            if (topics.containsKey(name)) {
                throw new ControlPlaneException(Kind.TOPIC_EXISTS, name);
            }
            List<Integer> live = brokers.values().stream()
                    .filter(b -> !b.fenced())
                    .map(BrokerInfo::id)
                    .toList();
            if (replicationFactor < 1 || replicationFactor > live.size()) {
                throw new ControlPlaneException(Kind.INVALID_REPLICATION_FACTOR, "rf " + replicationFactor);
            }
            List<PartitionInfo> parts = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                List<Integer> replicas = new ArrayList<>();
                for (int r = 0; r < replicationFactor; r++) {
                    replicas.add(live.get((p + r) % live.size()));
                }
                parts.add(new PartitionInfo(p, replicas, replicas.getFirst(), 0, replicas, 0));
            }
            TopicInfo topic = new TopicInfo(name, Uuid.randomUuid(), configs, parts);
            topics.put(name, topic);
            return new TopicWrite(bumpTopic(name), topic);
        });
    }

    @Override
    public long deleteTopic(String name) {
        return call(() -> {
            if (topics.remove(name) == null) {
                throw new ControlPlaneException(Kind.UNKNOWN_TOPIC, name);
            }
            return bumpTopic(name);
        });
    }

    @Override
    public TopicWrite alterConfigs(String topic, Map<String, String> set, Collection<String> remove) {
        throw new UnsupportedOperationException();
    }

    @Override
    public TopicWrite createPartitions(String topic, int totalCount) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ProducerIdBlock allocateProducerIds(int brokerId, int count) {
        throw new UnsupportedOperationException();
    }

    /**
     * The coordinator's AlterPartition rules: the proposer must be the partition's leader at its
     * current leader and partition epochs ({@code STALE_EPOCH} otherwise), the ISR a non-empty
     * subset of the replicas holding the leader ({@code INVALID_REQUEST}); the change commits with
     * the next partition epoch and version.
     */
    @Override
    public PartitionWrite alterPartition(
            String topic, int partition, int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
        return call(() -> {
            alterPartitions.incrementAndGet();
            TopicInfo t = topics.get(topic);
            if (t == null || t.partition(partition).isEmpty()) {
                throw new ControlPlaneException(Kind.UNKNOWN_TOPIC, topic + "-" + partition);
            }
            PartitionInfo current = t.partition(partition).get();
            if (current.leader() != leaderId
                    || current.leaderEpoch() != leaderEpoch
                    || current.partitionEpoch() != partitionEpoch) {
                throw new ControlPlaneException(
                        Kind.STALE_EPOCH,
                        "partition " + current + ", proposal by " + leaderId + " at epochs " + leaderEpoch + "/"
                                + partitionEpoch);
            }
            if (isr.isEmpty() || !isr.contains(leaderId) || !current.replicas().containsAll(isr)) {
                throw new ControlPlaneException(Kind.INVALID_REQUEST, "ISR " + isr + " for " + current);
            }
            PartitionInfo next =
                    new PartitionInfo(partition, current.replicas(), leaderId, leaderEpoch, isr, partitionEpoch + 1);
            putPartition(t, next);
            return new PartitionWrite(bumpTopic(topic), topic, next);
        });
    }

    // ---- partition controls

    /** AlterPartition calls received. */
    public int alterPartitions() {
        return alterPartitions.get();
    }

    /** The partition as committed. */
    public PartitionInfo partitionInfo(String topic, int partition) {
        lock.lock();
        try {
            return topics.get(topic).partition(partition).orElseThrow();
        } finally {
            lock.unlock();
        }
    }

    /**
     * What the coordinators' liveness does when a leader is fenced: {@code leader} leads with the
     * next leader epoch and ISR {@code isr}.
     */
    public long electLeader(String topic, int partition, int leader, List<Integer> isr) {
        lock.lock();
        try {
            TopicInfo t = topics.get(topic);
            PartitionInfo current = t.partition(partition).orElseThrow();
            putPartition(
                    t,
                    new PartitionInfo(
                            partition,
                            current.replicas(),
                            leader,
                            current.leaderEpoch() + 1,
                            isr,
                            current.partitionEpoch() + 1));
            return bumpTopic(topic);
        } finally {
            lock.unlock();
        }
    }

    private void putPartition(TopicInfo topic, PartitionInfo next) {
        List<PartitionInfo> parts = new ArrayList<>(topic.partitions());
        parts.set(next.partition(), next);
        topics.put(topic.name(), new TopicInfo(topic.name(), topic.id(), topic.configs(), parts));
    }

    // ---- helpers

    private interface Body<T> {
        T run();
    }

    private <T> T call(Body<T> body) {
        callsInFlight.incrementAndGet();
        try {
            if (partitioned) {
                throw new ControlPlaneException(Kind.UNAVAILABLE, "cannot connect to any coordinator");
            }
            lock.lock();
            try {
                return body.run();
            } finally {
                lock.unlock();
            }
        } finally {
            callsInFlight.decrementAndGet();
        }
    }

    private long bump(int brokerId) {
        version++;
        brokerChangedAt.put(brokerId, version);
        changed.signalAll();
        return version;
    }

    private long bumpTopic(String name) {
        version++;
        topicChangedAt.put(name, version);
        changed.signalAll();
        return version;
    }
}
