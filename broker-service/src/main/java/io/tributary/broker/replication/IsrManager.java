package io.tributary.broker.replication;

import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.PartitionInfo;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's side of ISR changes (Kafka's {@code Partition.maybeShrinkIsr} / {@code
 * maybeExpandIsr} and {@code AlterPartitionManager}): {@link #checkIsr} (every {@code
 * isrCheckInterval}) proposes to drop followers not caught up for {@code lagTimeMax}, and {@link
 * #followerMayJoinIsr} (on a follower's Fetch) to add one that reached the high watermark. Each
 * proposal goes to the coordinators with {@link ControlPlane#alterPartition} at the partition's
 * leader and partition epochs, on the sender executor (never on a request or the metadata thread);
 * at most one per partition is in flight ({@link Partition#beginIsrChange}); the committed answer
 * is applied to the partition ({@link Partition#completeIsrChange}), never the proposal itself.
 * {@code STALE_EPOCH}: no new proposal until the image brings another partition epoch; any other
 * failure: none for {@code alterPartitionRetryBackoff}. An inactive broker (fenced) proposes
 * nothing. Brokers fenced in the newest image ({@link #setEligible}) are dropped by the periodic
 * check and never proposed in (the coordinators refuse an ISR naming a fenced broker).
 *
 * <p>Thread-safe.
 */
public final class IsrManager {

    private static final Logger log = LoggerFactory.getLogger(IsrManager.class);

    private final int localBrokerId;
    private final ControlPlane controlPlane;
    private final Supplier<Collection<Partition>> partitions;
    private final BooleanSupplier active;
    private final ReplicationConfig config;
    private final Executor sender;
    private final ReplicationMetrics metrics;
    private volatile IntPredicate eligible = broker -> true;

    public IsrManager(
            int localBrokerId,
            ControlPlane controlPlane,
            Supplier<Collection<Partition>> partitions,
            BooleanSupplier active,
            ReplicationConfig config,
            Executor sender) {
        this(localBrokerId, controlPlane, partitions, active, config, sender, ReplicationMetrics.NONE);
    }

    public IsrManager(
            int localBrokerId,
            ControlPlane controlPlane,
            Supplier<Collection<Partition>> partitions,
            BooleanSupplier active,
            ReplicationConfig config,
            Executor sender,
            ReplicationMetrics metrics) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.localBrokerId = localBrokerId;
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.partitions = Objects.requireNonNull(partitions, "partitions");
        this.active = Objects.requireNonNull(active, "active");
        this.config = Objects.requireNonNull(config, "config");
        this.sender = Objects.requireNonNull(sender, "sender");
    }

    /**
     * Which brokers may join an ISR (registered and not fenced in the newest image, as the
     * coordinators require; Kafka's KIP-841): expansions leave the others out.
     */
    public void setEligible(IntPredicate eligible) {
        this.eligible = Objects.requireNonNull(eligible, "eligible");
    }

    /** One periodic pass over the partitions this broker leads: shrinks, then expansions. */
    public void checkIsr() {
        if (!active.getAsBoolean()) {
            return;
        }
        long lagMs = config.lagTimeMax().toMillis();
        for (Partition partition : partitions.get()) {
            if (!partition.isLeader()) {
                continue;
            }
            try {
                List<Integer> current = partition.info().isr();
                IntPredicate may = eligible;
                // Lagging followers go, and so do fenced ones (the coordinators refuse an ISR naming one).
                Optional<List<Integer>> shrink = partition.shrinkCandidate(lagMs);
                List<Integer> kept = shrink.orElse(current).stream()
                        .filter(r -> r == localBrokerId || may.test(r))
                        .toList();
                // A candidate as large as the committed ISR drops members of an expansion whose
                // outcome is unknown (its answer was lost): proposing it asks the coordinators.
                if (shrink.isPresent() || kept.size() < current.size()) {
                    propose(partition, kept, "shrink");
                } else {
                    expand(partition, lagMs);
                }
            } catch (RuntimeException e) {
                log.warn("{}: ISR check failed: {}", partition, e.toString());
            }
        }
    }

    /** A follower outside the ISR fetched up to the high watermark: propose adding it. */
    public void followerMayJoinIsr(Partition partition, int replicaId) {
        if (!active.getAsBoolean()) {
            return;
        }
        expand(partition, config.lagTimeMax().toMillis());
    }

    private void expand(Partition partition, long lagMs) {
        Optional<List<Integer>> candidate = partition.expandCandidate(lagMs);
        if (candidate.isEmpty()) {
            return;
        }
        List<Integer> current = partition.info().isr();
        IntPredicate may = eligible;
        List<Integer> next = candidate.get().stream()
                .filter(r -> current.contains(r) || may.test(r))
                .toList();
        if (next.size() > current.size()) {
            propose(partition, next, "expand");
        }
    }

    private void propose(Partition partition, List<Integer> isr, String what) {
        Optional<PartitionInfo> basis = partition.beginIsrChange(isr);
        if (basis.isEmpty()) {
            return;
        }
        log.info(
                "{}: proposing ISR {} -> {} ({}, leader epoch {}, partition epoch {})",
                partition.topicIdPartition(),
                basis.get().isr(),
                isr,
                what,
                basis.get().leaderEpoch(),
                basis.get().partitionEpoch());
        try {
            sender.execute(() -> send(partition, basis.get(), isr));
        } catch (RejectedExecutionException e) {
            partition.failIsrChange(
                    basis.get(), false, config.alterPartitionRetryBackoff().toMillis());
        }
    }

    private void send(Partition partition, PartitionInfo basis, List<Integer> isr) {
        try {
            ControlPlane.PartitionWrite write = controlPlane.alterPartition(
                    partition.topicIdPartition().topic(),
                    partition.topicIdPartition().partition(),
                    localBrokerId,
                    basis.leaderEpoch(),
                    basis.partitionEpoch(),
                    isr);
            partition.completeIsrChange(basis, write.partition());
            if (write.partition().isr().size() < basis.isr().size()) {
                metrics.isrShrunk();
            } else if (write.partition().isr().size() > basis.isr().size()) {
                metrics.isrExpanded();
            }
        } catch (ControlPlaneException e) {
            metrics.alterPartitionFailed();
            boolean stale = e.kind() == ControlPlaneException.Kind.STALE_EPOCH;
            log.info(
                    "{}: AlterPartition to ISR {} refused ({}: {}){}",
                    partition.topicIdPartition(),
                    isr,
                    e.kind(),
                    e.getMessage(),
                    stale ? "; waiting for the next image" : "; retrying later");
            partition.failIsrChange(
                    basis, stale, config.alterPartitionRetryBackoff().toMillis());
        } catch (RuntimeException e) {
            metrics.alterPartitionFailed();
            log.warn("{}: AlterPartition to ISR {} failed", partition.topicIdPartition(), isr, e);
            partition.failIsrChange(
                    basis, false, config.alterPartitionRetryBackoff().toMillis());
        }
    }
}
