package io.tributary.coordinator.app;

import io.tributary.coordinator.api.Heartbeats;
import io.tributary.coordinator.liveness.BrokerLiveness;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs {@link BrokerLiveness} on the metadata leader: a tick every heartbeat interval, whose fence
 * and election commands it submits through Raft; on a follower it forgets every session, so a new
 * leader starts from a full session timeout. Heartbeats and controlled shutdowns come in from the
 * control plane through {@link #heartbeat} and {@link #shutdown}.
 *
 * <p>Thread-safety: {@link BrokerLiveness} is used under this object's lock; commands are submitted
 * outside it.
 */
class LivenessLoop implements SmartLifecycle, Heartbeats {

    private static final Logger log = LoggerFactory.getLogger(LivenessLoop.class);

    private final BrokerLiveness liveness;
    private final MetadataRaftNode node;
    private final MetadataClient client;
    private final Duration interval;
    private ScheduledExecutorService scheduler;

    LivenessLoop(BrokerLiveness liveness, MetadataRaftNode node, MetadataClient client, Duration interval) {
        this.liveness = liveness;
        this.node = node;
        this.client = client;
        this.interval = interval;
    }

    /**
     * Records a broker's heartbeat on the leader and unfences it if it was fenced.
     *
     * @throws MetadataException if the broker is unknown or the incarnation is stale
     * @throws IOException if an unfence could not be committed
     */
    @Override
    public void heartbeat(int brokerId, UUID incarnationId) throws IOException {
        Optional<MetadataCommand> unfence;
        synchronized (this) {
            unfence = liveness.heartbeat(node.stateMachine().image(), brokerId, incarnationId);
        }
        if (unfence.isPresent()) {
            client.submit(unfence.get());
        }
    }

    /**
     * A broker's controlled shutdown: submits its {@code FenceBroker} at once.
     *
     * @return the version that has it fenced (the image's version when it was fenced already)
     * @throws MetadataException if the broker is unknown or the incarnation is stale
     * @throws IOException if the fence could not be committed
     */
    @Override
    public long shutdown(int brokerId, UUID incarnationId) throws IOException {
        Optional<MetadataCommand> fence;
        long version;
        synchronized (this) {
            var image = node.stateMachine().image();
            fence = liveness.shutdown(image, brokerId, incarnationId);
            version = image.version();
        }
        if (fence.isEmpty()) {
            return version;
        }
        long committed = client.submit(fence.get());
        log.info(
                "liveness: broker {} incarnation {} is shutting down: fenced at version {}",
                brokerId,
                incarnationId,
                committed);
        return committed;
    }

    void tick() {
        List<MetadataCommand> commands;
        synchronized (this) {
            if (!node.isLeader()) {
                liveness.reset();
                return;
            }
            commands = liveness.tick(node.stateMachine().image());
        }
        for (MetadataCommand command : commands) {
            try {
                client.submit(command);
                log.info("liveness: {}", command);
            } catch (MetadataException e) {
                log.debug("liveness command {} refused: {}", command, e.getMessage());
            } catch (IOException e) {
                log.warn("liveness command {} not committed: {}", command, e.getMessage());
            } catch (RuntimeException e) {
                log.error("liveness command {} failed", command, e);
            }
        }
    }

    @Override
    public synchronized void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("metadata-liveness").daemon().factory());
        scheduler.scheduleWithFixedDelay(this::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scheduler != null;
    }

    @Override
    public int getPhase() {
        return RaftLifecycle.PHASE + 1;
    }
}
