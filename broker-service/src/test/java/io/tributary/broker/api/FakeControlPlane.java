package io.tributary.broker.api;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterAcls;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.ControlPlaneException.Kind;
import io.tributary.broker.cluster.MetadataDelta;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.ScramUsers;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.TopicConfigCatalog;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.internals.Topic;

/**
 * An in-memory control plane that behaves like the coordinators' (docs/control-plane.md): topic names
 * checked, existence and absence refused with the coordinator's kinds, replicas placed round-robin on
 * the unfenced brokers, every write a new version, producer-id blocks that never overlap. Tests can
 * make the next calls fail with {@link #failNext}.
 *
 * <p>Thread-safety: every method is synchronized.
 */
final class FakeControlPlane implements ControlPlane {

    /** The coordinators' default {@code max-partitions-per-topic}. */
    static final int MAX_PARTITIONS = 10_000;

    private long version;
    private final Map<Integer, BrokerInfo> brokers = new TreeMap<>();
    private final Map<String, TopicInfo> topics = new HashMap<>();
    private final Deque<ControlPlaneException> failures = new ArrayDeque<>();
    private long nextProducerId;
    /** The ACLs stored, in creation order; the coordinators' checks are {@link AclBinding#validate}'s. */
    private final List<AclBinding> acls = new ArrayList<>();

    private final java.util.Map<
                    io.tributary.common.security.quota.QuotaEntity,
                    java.util.Map<io.tributary.common.security.quota.QuotaKey, Double>>
            quotas = new java.util.LinkedHashMap<>();

    private int seed = 1;
    final AtomicInteger writes = new AtomicInteger();
    final AtomicInteger producerIdCalls = new AtomicInteger();
    /** The calls that failed with a failure queued by {@link #failNext}. */
    final AtomicInteger failedCalls = new AtomicInteger();

    /** A control plane that knows brokers {@code 0 .. count-1} on 127.0.0.1, ports 9092 + id. */
    static FakeControlPlane withBrokers(int count) {
        FakeControlPlane fake = new FakeControlPlane();
        for (int id = 0; id < count; id++) {
            fake.addBroker(id, 9092 + id, false);
        }
        return fake;
    }

    synchronized void addBroker(int id, int port, boolean fenced) {
        brokers.put(
                id,
                new BrokerInfo(
                        id,
                        Uuid.randomUuid(),
                        List.of(new BrokerEndpoint("PLAINTEXT", "127.0.0.1", port)),
                        "rack-" + id,
                        fenced));
        version++;
    }

    /** The committed image. */
    synchronized ClusterImage image() {
        return new ClusterImage(
                version,
                brokers,
                topics,
                ScramUsers.EMPTY,
                new ClusterAcls(acls),
                new io.tributary.broker.cluster.ClusterQuotas(quotas));
    }

    synchronized long version() {
        return version;
    }

    /** The next call (of any kind) throws {@code failure}. */
    synchronized void failNext(Kind kind, String detail) {
        failures.add(new ControlPlaneException(kind, detail));
    }

    private void maybeFail() {
        ControlPlaneException failure = failures.poll();
        if (failure != null) {
            failedCalls.incrementAndGet();
            throw failure;
        }
    }

    @Override
    public synchronized long register(int brokerId, Uuid incarnationId, String rack, List<BrokerEndpoint> endpoints) {
        maybeFail();
        brokers.put(brokerId, new BrokerInfo(brokerId, incarnationId, endpoints, rack, false));
        return ++version;
    }

    @Override
    public synchronized long heartbeat(int brokerId, Uuid incarnationId) {
        maybeFail();
        return version;
    }

    @Override
    public long shutdown(int brokerId, Uuid incarnationId, Duration timeout) {
        throw new UnsupportedOperationException("the admin handlers do not shut brokers down");
    }

    @Override
    public MetadataDelta fetchMetadata(OptionalLong after, Duration maxWait) {
        throw new UnsupportedOperationException("the admin handlers do not poll metadata");
    }

    @Override
    public synchronized TopicWrite createTopic(
            String name, int partitions, int replicationFactor, Map<String, String> configs) {
        maybeFail();
        if (!Topic.isValid(name)) {
            throw new ControlPlaneException(Kind.INVALID_REQUEST, "illegal topic name '" + name + "'");
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new ControlPlaneException(
                    Kind.INVALID_REQUEST, "partitions must be in 1.." + MAX_PARTITIONS + ", got " + partitions);
        }
        List<Integer> alive = alive();
        if (replicationFactor < 1 || replicationFactor > alive.size()) {
            throw new ControlPlaneException(
                    Kind.INVALID_REPLICATION_FACTOR,
                    "replication factor " + replicationFactor + " with " + alive.size() + " live brokers");
        }
        Map<String, String> normalized = validConfigs(configs);
        if (topics.containsKey(name)) {
            throw new ControlPlaneException(Kind.TOPIC_EXISTS, "topic '" + name + "' exists");
        }
        List<PartitionInfo> parts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            parts.add(place(p, replicationFactor, alive));
        }
        TopicInfo topic = new TopicInfo(name, Uuid.randomUuid(), normalized, parts);
        topics.put(name, topic);
        writes.incrementAndGet();
        return new TopicWrite(++version, topic);
    }

    @Override
    public synchronized long deleteTopic(String name) {
        maybeFail();
        if (topics.remove(name) == null) {
            throw new ControlPlaneException(Kind.UNKNOWN_TOPIC, "no topic '" + name + "'");
        }
        writes.incrementAndGet();
        return ++version;
    }

    @Override
    public synchronized TopicWrite alterConfigs(String topic, Map<String, String> set, Collection<String> remove) {
        maybeFail();
        TopicInfo current = known(topic);
        Map<String, String> configs = new TreeMap<>(current.configs());
        configs.putAll(validConfigs(set));
        remove.forEach(configs::remove);
        TopicInfo altered = new TopicInfo(topic, current.id(), configs, current.partitions());
        topics.put(topic, altered);
        writes.incrementAndGet();
        return new TopicWrite(++version, altered);
    }

    @Override
    public synchronized TopicWrite createPartitions(String topic, int totalCount) {
        maybeFail();
        TopicInfo current = known(topic);
        int have = current.partitions().size();
        if (totalCount <= have || totalCount > MAX_PARTITIONS) {
            throw new ControlPlaneException(
                    Kind.INVALID_PARTITIONS, "topic '" + topic + "' has " + have + " partitions, asked " + totalCount);
        }
        List<PartitionInfo> parts = new ArrayList<>(current.partitions());
        int replicationFactor = current.partitions().getFirst().replicas().size();
        for (int p = have; p < totalCount; p++) {
            parts.add(place(p, replicationFactor, alive()));
        }
        TopicInfo grown = new TopicInfo(topic, current.id(), current.configs(), parts);
        topics.put(topic, grown);
        writes.incrementAndGet();
        return new TopicWrite(++version, grown);
    }

    @Override
    public synchronized ProducerIdBlock allocateProducerIds(int brokerId, int count) {
        producerIdCalls.incrementAndGet();
        maybeFail();
        if (!brokers.containsKey(brokerId)) {
            throw new ControlPlaneException(Kind.UNKNOWN_BROKER, "no broker " + brokerId);
        }
        if (count < 1) {
            throw new ControlPlaneException(Kind.INVALID_REQUEST, "count must be 1 or more");
        }
        long first = nextProducerId;
        nextProducerId += count;
        return new ProducerIdBlock(++version, first, count);
    }

    @Override
    public PartitionWrite alterPartition(
            String topic, int partition, int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
        throw new UnsupportedOperationException("the admin handlers do not alter partitions");
    }

    private TopicInfo known(String topic) {
        TopicInfo current = topics.get(topic);
        if (current == null) {
            throw new ControlPlaneException(Kind.UNKNOWN_TOPIC, "no topic '" + topic + "'");
        }
        return current;
    }

    private static Map<String, String> validConfigs(Map<String, String> configs) {
        try {
            return TopicConfigCatalog.validate(configs);
        } catch (InvalidConfigurationException e) {
            throw new ControlPlaneException(Kind.INVALID_CONFIG, e.getMessage());
        }
    }

    private List<Integer> alive() {
        return brokers.values().stream()
                .filter(b -> !b.fenced())
                .map(BrokerInfo::id)
                .toList();
    }

    private PartitionInfo place(int partition, int replicationFactor, List<Integer> alive) {
        List<Integer> replicas = new ArrayList<>();
        int start = seed++;
        for (int i = 0; i < replicationFactor; i++) {
            replicas.add(alive.get((start + i) % alive.size()));
        }
        return new PartitionInfo(partition, replicas, replicas.getFirst(), 0, replicas, 0);
    }

    /** Accepts every alteration (no per-user checks: those are the coordinators'), one new version. */
    @Override
    public synchronized ScramWrite alterScramCredentials(
            List<ScramDeletion> deletions, List<ScramUpsertion> upsertions) {
        maybeFail();
        java.util.Set<String> users = new java.util.LinkedHashSet<>();
        deletions.forEach(d -> users.add(d.user()));
        upsertions.forEach(u -> users.add(u.user()));
        writes.incrementAndGet();
        return new ScramWrite(
                ++version,
                users.stream().map(u -> new ScramResult(u, "NONE", null)).toList());
    }

    @Override
    public synchronized AclCreation createAcls(List<AclBinding> creations) {
        maybeFail();
        List<AclOutcome> results = new ArrayList<>();
        boolean added = false;
        for (AclBinding acl : creations) {
            var reason = acl.validate();
            if (reason.isPresent()) {
                results.add(new AclOutcome("INVALID_REQUEST", reason.get()));
                continue;
            }
            if (!acls.contains(acl)) {
                acls.add(acl);
                added = true;
            }
            results.add(new AclOutcome("NONE", null));
        }
        if (added) {
            version++;
            writes.incrementAndGet();
        }
        return new AclCreation(version, results);
    }

    @Override
    public synchronized AclDeletion deleteAcls(List<AclBindingFilter> filters) {
        maybeFail();
        List<AclFilterOutcome> results = new ArrayList<>();
        java.util.Set<AclBinding> deleted = new java.util.LinkedHashSet<>();
        for (AclBindingFilter filter : filters) {
            if (filter.invalidReason() != null) {
                results.add(new AclFilterOutcome(new AclOutcome("INVALID_REQUEST", filter.invalidReason()), List.of()));
                continue;
            }
            List<AclBinding> matched = acls.stream().filter(filter::matches).toList();
            deleted.addAll(matched);
            results.add(new AclFilterOutcome(new AclOutcome("NONE", null), matched));
        }
        if (acls.removeAll(deleted)) {
            version++;
            writes.incrementAndGet();
        }
        return new AclDeletion(version, results);
    }

    /**
     * Stores what each entry sets and removes, without the coordinators' checks but one: an entity
     * type other than user and client-id is {@code INVALID_REQUEST} (the checks are the coordinator's
     * {@code QuotaChanges}, tested there).
     */
    @Override
    public synchronized QuotaAlteration alterClientQuotas(QuotaRequest request) {
        maybeFail();
        List<AclOutcome> results = new ArrayList<>();
        boolean changed = false;
        for (QuotaEntry entry : request.entries()) {
            java.util.Map<io.tributary.common.security.quota.QuotaEntityType, java.util.Optional<String>> parts =
                    new java.util.EnumMap<>(io.tributary.common.security.quota.QuotaEntityType.class);
            boolean valid = true;
            for (QuotaPart p : entry.entity()) {
                var type = io.tributary.common.security.quota.QuotaEntityType.fromWireName(p.entityType());
                valid &= type.isPresent();
                type.ifPresent(t -> parts.put(t, java.util.Optional.ofNullable(p.name())));
            }
            if (!valid) {
                results.add(new AclOutcome("INVALID_REQUEST", "Unhandled client quota entity type"));
                continue;
            }
            results.add(new AclOutcome("NONE", null));
            if (request.validateOnly()) {
                continue;
            }
            var entity = new io.tributary.common.security.quota.QuotaEntity(parts);
            var values = new java.util.EnumMap<io.tributary.common.security.quota.QuotaKey, Double>(
                    io.tributary.common.security.quota.QuotaKey.class);
            values.putAll(quotas.getOrDefault(entity, java.util.Map.of()));
            for (QuotaOp op : entry.ops()) {
                var key = io.tributary.common.security.quota.QuotaKey.fromWireName(op.key())
                        .orElseThrow();
                if (op.remove()) {
                    values.remove(key);
                } else {
                    values.put(key, op.value());
                }
            }
            if (values.isEmpty()) {
                quotas.remove(entity);
            } else {
                quotas.put(entity, values);
            }
            changed = true;
        }
        if (changed) {
            version++;
            writes.incrementAndGet();
        }
        return new QuotaAlteration(version, results);
    }
}
