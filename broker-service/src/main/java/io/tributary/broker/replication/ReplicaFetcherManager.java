package io.tributary.broker.replication;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.common.security.internal.InternalClientSecurity;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicIdPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one {@link ReplicaFetcher} per source broker, in step with the replicas: after every image,
 * each partition this broker follows (a leader that is another broker with an endpoint on the
 * configured listener) is assigned to the fetcher of its leader, in its leader epoch; partitions
 * this broker now leads, or no longer holds, are removed; a fetcher left with no partition, or
 * whose broker moved to another endpoint, is stopped (a new one starts for the new endpoint).
 *
 * <p>Thread-safety: {@link #replicasChanged} (metadata thread) and {@link #close} are serialised on
 * this object.
 */
public final class ReplicaFetcherManager implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcherManager.class);

    private final int localBrokerId;
    private final ReplicationConfig config;
    private final LeaderChannel.Connector connector;
    private final InstantSource clock;
    private final ReplicationMetrics metrics;
    private final Consumer<ReplicaFetcher> starter;
    private final Map<Integer, ReplicaFetcher> fetchers = new HashMap<>();
    private boolean closed;

    /**
     * Fetchers over sockets to the leaders' internal listeners, secured with {@code security} (TLS
     * when the listeners are TLS, a login when they require SASL).
     */
    public ReplicaFetcherManager(
            int localBrokerId,
            ReplicationConfig config,
            InstantSource clock,
            ReplicationMetrics metrics,
            InternalClientSecurity security) {
        this(
                localBrokerId,
                config,
                SocketLeaderChannel.connector(localBrokerId, config.connectTimeout(), config.socketTimeout(), security),
                clock,
                metrics);
    }

    ReplicaFetcherManager(
            int localBrokerId,
            ReplicationConfig config,
            LeaderChannel.Connector connector,
            InstantSource clock,
            ReplicationMetrics metrics) {
        this(localBrokerId, config, connector, clock, metrics, ReplicaFetcher::start);
    }

    /**
     * With {@code starter} instead of {@link ReplicaFetcher#start} for new fetchers: a simulation
     * passes {@link ReplicaFetcher#startWithoutThread} and runs the fetchers' rounds itself.
     */
    ReplicaFetcherManager(
            int localBrokerId,
            ReplicationConfig config,
            LeaderChannel.Connector connector,
            InstantSource clock,
            ReplicationMetrics metrics,
            Consumer<ReplicaFetcher> starter) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.starter = Objects.requireNonNull(starter, "starter");
        this.localBrokerId = localBrokerId;
        this.config = Objects.requireNonNull(config, "config");
        this.connector = Objects.requireNonNull(connector, "connector");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Reassigns the followed partitions to fetchers after {@code image}. */
    public synchronized void replicasChanged(ClusterImage image, Collection<Partition> replicas) {
        if (closed) {
            return;
        }
        Map<Integer, Map<TopicIdPartition, Partition>> wanted = new HashMap<>();
        Map<Integer, BrokerEndpoint> endpoints = new HashMap<>();
        for (Partition partition : replicas) {
            PartitionInfo info = partition.info();
            if (!info.hasLeader() || info.leader() == localBrokerId) {
                continue;
            }
            Optional<BrokerEndpoint> endpoint = image.broker(info.leader()).flatMap(this::endpointOf);
            if (endpoint.isEmpty()) {
                log.debug("{}: leader {} has no {} endpoint yet", partition, info.leader(), config.listener());
                continue;
            }
            endpoints.put(info.leader(), endpoint.get());
            wanted.computeIfAbsent(info.leader(), k -> new HashMap<>()).put(partition.topicIdPartition(), partition);
        }
        for (Map.Entry<Integer, ReplicaFetcher> entry : List.copyOf(fetchers.entrySet())) {
            ReplicaFetcher fetcher = entry.getValue();
            Map<TopicIdPartition, Partition> mine = wanted.get(entry.getKey());
            if (mine == null || !endpoints.get(entry.getKey()).equals(fetcher.endpoint())) {
                fetchers.remove(entry.getKey());
                log.info("Stopping {}", fetcher);
                fetcher.stop();
                continue;
            }
            for (TopicIdPartition id : fetcher.states().keySet()) {
                if (!mine.containsKey(id)) {
                    fetcher.remove(id);
                }
            }
        }
        for (Map.Entry<Integer, Map<TopicIdPartition, Partition>> entry : wanted.entrySet()) {
            ReplicaFetcher fetcher = fetchers.get(entry.getKey());
            if (fetcher == null) {
                fetcher = new ReplicaFetcher(
                        localBrokerId,
                        entry.getKey(),
                        endpoints.get(entry.getKey()),
                        config,
                        connector,
                        clock,
                        metrics);
                fetchers.put(entry.getKey(), fetcher);
                for (Partition partition : entry.getValue().values()) {
                    fetcher.assign(partition, partition.leaderEpoch());
                }
                log.info("Starting {}", fetcher);
                starter.accept(fetcher);
            } else {
                for (Partition partition : entry.getValue().values()) {
                    fetcher.assign(partition, partition.leaderEpoch());
                }
            }
        }
    }

    private Optional<BrokerEndpoint> endpointOf(BrokerInfo broker) {
        return broker.endpoint(config.listener())
                .or(() -> broker.endpoints().stream().findFirst());
    }

    /** The source brokers fetched from, and the partitions fetched from each (tests, health). */
    public synchronized Map<Integer, Collection<TopicIdPartition>> assignments() {
        Map<Integer, Collection<TopicIdPartition>> result = new HashMap<>();
        fetchers.forEach(
                (id, fetcher) -> result.put(id, List.copyOf(fetcher.states().keySet())));
        return result;
    }

    /** The fetchers by source broker (simulations drive their rounds). */
    synchronized Map<Integer, ReplicaFetcher> fetchers() {
        return Map.copyOf(fetchers);
    }

    /** Stops every fetcher. */
    @Override
    public synchronized void close() {
        closed = true;
        for (ReplicaFetcher fetcher : fetchers.values()) {
            fetcher.stop();
        }
        fetchers.clear();
    }
}
