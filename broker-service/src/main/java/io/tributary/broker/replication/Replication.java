package io.tributary.broker.replication;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.ControlPlane;
import io.tributary.common.security.internal.InternalClientSecurity;
import java.time.InstantSource;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replication on one broker: the follower fetchers ({@link ReplicaFetcherManager}) and the leader's
 * ISR changes ({@link IsrManager}), attached to the {@link ReplicaManager} as its {@link
 * ReplicaManager.ReplicationListener}. {@link #start} attaches it and schedules the ISR check on one
 * platform thread ({@code replica-isr-check}); AlterPartition calls run on virtual threads. {@link
 * #close} stops the checks and every fetcher; call it before the replica manager closes.
 */
public final class Replication implements ReplicaManager.ReplicationListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Replication.class);

    private final ReplicaManager replicas;
    private final ReplicationConfig config;
    private final ReplicaFetcherManager fetchers;
    private final IsrManager isr;
    private final ExecutorService sender;
    private ScheduledExecutorService scheduler;

    public Replication(
            ReplicaManager replicas,
            ControlPlane controlPlane,
            BooleanSupplier active,
            ReplicationConfig config,
            InstantSource clock) {
        this(replicas, controlPlane, active, config, clock, ReplicationMetrics.NONE, InternalClientSecurity.PLAINTEXT);
    }

    /**
     * @param security how this broker's fetchers secure their connections to the leaders' internal
     *     listeners (TLS, a login, both, or {@link InternalClientSecurity#PLAINTEXT})
     */
    public Replication(
            ReplicaManager replicas,
            ControlPlane controlPlane,
            BooleanSupplier active,
            ReplicationConfig config,
            InstantSource clock,
            ReplicationMetrics metrics,
            InternalClientSecurity security) {
        this(
                replicas,
                controlPlane,
                active,
                config,
                new ReplicaFetcherManager(replicas.brokerId(), config, clock, metrics, security),
                Executors.newVirtualThreadPerTaskExecutor(),
                metrics);
    }

    /**
     * With the given fetcher manager and AlterPartition sender (a simulation passes ones it drives);
     * {@link #start} is then optional: a caller that runs the ISR checks itself attaches with {@link
     * ReplicaManager#setReplicationListener}.
     */
    Replication(
            ReplicaManager replicas,
            ControlPlane controlPlane,
            BooleanSupplier active,
            ReplicationConfig config,
            ReplicaFetcherManager fetchers,
            ExecutorService sender,
            ReplicationMetrics metrics) {
        this.replicas = Objects.requireNonNull(replicas, "replicas");
        this.config = Objects.requireNonNull(config, "config");
        this.fetchers = Objects.requireNonNull(fetchers, "fetchers");
        this.sender = Objects.requireNonNull(sender, "sender");
        this.isr = new IsrManager(
                replicas.brokerId(), controlPlane, replicas::partitions, active, config, sender, metrics);
    }

    /** Attaches to the replica manager and starts the periodic ISR check. */
    public synchronized Replication start() {
        replicas.setReplicationListener(this);
        scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .name("replica-isr-check-" + replicas.brokerId())
                .daemon(true)
                .factory());
        long intervalMs = config.isrCheckInterval().toMillis();
        scheduler.scheduleWithFixedDelay(
                () -> {
                    try {
                        isr.checkIsr();
                    } catch (RuntimeException e) {
                        log.error("ISR check failed", e);
                    }
                },
                intervalMs,
                intervalMs,
                TimeUnit.MILLISECONDS);
        return this;
    }

    public ReplicaFetcherManager fetchers() {
        return fetchers;
    }

    public IsrManager isrManager() {
        return isr;
    }

    @Override
    public void replicasChanged(ClusterImage image, Collection<Partition> replicaSet) {
        isr.setEligible(broker -> image.broker(broker).map(b -> !b.fenced()).orElse(false));
        fetchers.replicasChanged(image, replicaSet);
    }

    @Override
    public void followerMayJoinIsr(Partition partition, int replicaId) {
        isr.followerMayJoinIsr(partition, replicaId);
    }

    /** Stops the ISR checks, every fetcher and the AlterPartition senders. */
    @Override
    public synchronized void close() {
        replicas.setReplicationListener(ReplicaManager.ReplicationListener.NONE);
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        fetchers.close();
        sender.shutdownNow();
    }
}
