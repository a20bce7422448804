package io.tributary.broker.cluster;

import io.tributary.broker.cluster.ControlPlaneException.Kind;
import io.tributary.common.protocol.RequestWaits;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker's membership in the cluster and its copy of the metadata.
 *
 * <pre>
 *  start(endpoints)            (after the Kafka listener is bound: the endpoint has the real port)
 *     |
 *     +-- membership thread:  register(id, incarnation, rack, endpoints)  -- retried until it succeeds
 *     |                        then every heartbeat-interval: heartbeat(id, incarnation)
 *     |                        STALE_EPOCH / UNKNOWN_BROKER  ->  register again (same incarnation)
 *     |
 *     +-- metadata thread:    fetchMetadata(after = image version, max wait)   (the long poll)
 *                              image = image.apply(delta)  ->  listeners, in version order
 *                              ->  awaitVersion waiters wake
 *
 *  controlledShutdown(timeout) (a clean stop, before the Kafka listener closes)
 *     membership thread ends (no heartbeat may unfence us)  ->  shutdown(id, incarnation)
 *     ->  awaitVersion(the fence)                          then close()
 * </pre>
 *
 * <p><b>Incarnation.</b> Each follower is one run of the process: a new {@link Uuid} on
 * construction. The coordinators fence the previous incarnation when a new one registers, and a
 * registered broker starts fenced until its first heartbeat.
 *
 * <p><b>Active.</b> {@link #isActive()} holds when the registration succeeded, the image shows
 * this broker with this incarnation and not fenced, and the last successful heartbeat was sent
 * less than {@link Config#sessionTimeout()} ago (the coordinators' session timeout). The last
 * condition makes a broker cut off from the coordinators stop acting as a leader by itself, at
 * about the time the coordinators fence it and elect other leaders, even though it cannot learn
 * of the fence.
 *
 * <p><b>Metadata.</b> Deltas are applied in order to an immutable {@link ClusterImage}; an answer
 * at a version not above the image's (a lagging coordinator's empty long poll) changes nothing.
 * When a heartbeat reports the leader at a version below this image's (the coordinators' state was
 * replaced), the next poll asks for the full image and replaces this one whatever its version.
 * Listeners are called on the metadata thread, one image at a time; {@link #awaitVersion} returns
 * once the listeners of that version have run, so a handler that waited for its write sees the
 * write's effects (an opened partition, say).
 *
 * <p><b>Threads.</b> Two virtual threads, started by {@link #start} and interrupted and joined by
 * {@link #close}. Pauses park on a condition that {@link #close} signals; nothing spins.
 *
 * <p>Thread-safety: every public method is safe to call from any thread.
 */
public final class MetadataFollower implements MetadataView, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MetadataFollower.class);

    /**
     * The follower's settings.
     *
     * @param brokerId this broker's id
     * @param rack its rack, or empty
     * @param heartbeatInterval the pause between heartbeats (the coordinators' default: 1 s)
     * @param sessionTimeout how long after its last successful heartbeat the broker counts as
     *     cut off (the coordinators' session timeout, default 6 s)
     * @param metadataMaxWait the long poll's wait; below the coordinators' {@code max-wait} (15 s)
     * @param retryBackoff the pause after a failed registration or metadata poll
     * @param joinTimeout how long {@link #close} waits for each thread to end
     */
    public record Config(
            int brokerId,
            Optional<String> rack,
            Duration heartbeatInterval,
            Duration sessionTimeout,
            Duration metadataMaxWait,
            Duration retryBackoff,
            Duration joinTimeout) {

        public Config {
            if (brokerId < 0) {
                throw new IllegalArgumentException("brokerId must be 0 or more: " + brokerId);
            }
            Objects.requireNonNull(rack, "rack");
            rack = rack.filter(r -> !r.isBlank());
            requirePositive(heartbeatInterval, "heartbeatInterval");
            requirePositive(sessionTimeout, "sessionTimeout");
            requirePositive(retryBackoff, "retryBackoff");
            requirePositive(joinTimeout, "joinTimeout");
            Objects.requireNonNull(metadataMaxWait, "metadataMaxWait");
            if (metadataMaxWait.isNegative()) {
                throw new IllegalArgumentException("metadataMaxWait must not be negative: " + metadataMaxWait);
            }
            if (heartbeatInterval.compareTo(sessionTimeout) >= 0) {
                throw new IllegalArgumentException("heartbeatInterval (%s) must be below sessionTimeout (%s)"
                        .formatted(heartbeatInterval, sessionTimeout));
            }
        }

        private static void requirePositive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (!d.isPositive()) {
                throw new IllegalArgumentException(name + " must be positive: " + d);
            }
        }
    }

    /**
     * What the health endpoint shows.
     *
     * @param registered whether this incarnation's registration succeeded (and no heartbeat since
     *     said the coordinators forgot it)
     * @param active {@link #isActive()}
     * @param fenced whether the image shows this incarnation fenced (or not registered at all)
     * @param lastHeartbeat when the last successful heartbeat was sent
     * @param metadataVersion the image's version, -1 before the first answer
     */
    public record Status(
            Uuid incarnationId,
            boolean registered,
            boolean active,
            boolean fenced,
            Optional<Instant> lastHeartbeat,
            long metadataVersion) {}

    private final Config config;
    private final ControlPlane controlPlane;
    private final Supplier<List<MetadataListener>> listenerSource;
    private final InstantSource clock;
    private final Uuid incarnationId = Uuid.randomUuid();

    private final AtomicReference<ClusterImage> image = new AtomicReference<>(ClusterImage.EMPTY);
    /** Guards {@link #notifiedVersion} and {@link #stopping}; its conditions wake waiters and pauses. */
    private final ReentrantLock lock = new ReentrantLock();

    private final Condition versionReached = lock.newCondition();
    private final Condition stopRequested = lock.newCondition();
    /** The newest version whose listeners have all run. */
    private long notifiedVersion = ClusterImage.EMPTY.version();

    private boolean stopping;
    /** Set by {@link #controlledShutdown}: the membership thread sends no more heartbeats. */
    private boolean leaving;

    private volatile boolean registered;
    private volatile Instant lastHeartbeat;
    /** Set when the coordinators' state went back: the next poll replaces the image whole. */
    private volatile boolean fullFetchRequested;

    private final AtomicLong heartbeatFailures = new AtomicLong();
    private final AtomicLong metadataPollFailures = new AtomicLong();
    private final AtomicLong registrationFailures = new AtomicLong();

    private List<MetadataListener> listeners = List.of();
    private Thread membershipThread;
    private Thread metadataThread;

    /**
     * @param listenerSource the listeners, resolved once in {@link #start} (so that listeners which
     *     themselves read this view can be built after it)
     */
    public MetadataFollower(
            Config config,
            ControlPlane controlPlane,
            Supplier<List<MetadataListener>> listenerSource,
            InstantSource clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.listenerSource = Objects.requireNonNull(listenerSource, "listenerSource");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Registers with these endpoints and starts heartbeating and following the metadata, on two
     * virtual threads. Call once, after the listeners behind the endpoints are bound.
     */
    public synchronized void start(List<BrokerEndpoint> endpoints) {
        List<BrokerEndpoint> registeredEndpoints = List.copyOf(endpoints);
        if (registeredEndpoints.isEmpty()) {
            throw new IllegalArgumentException("a broker registers at least one endpoint");
        }
        if (membershipThread != null) {
            throw new IllegalStateException("the metadata follower was already started");
        }
        listeners = List.copyOf(listenerSource.get());
        log.info(
                "broker {} incarnation {} joins the cluster with endpoints {}",
                config.brokerId(),
                incarnationId,
                registeredEndpoints);
        membershipThread = Thread.ofVirtual()
                .name("broker-" + config.brokerId() + "-membership")
                .start(() -> membershipLoop(registeredEndpoints));
        metadataThread = Thread.ofVirtual()
                .name("broker-" + config.brokerId() + "-metadata")
                .start(this::metadataLoop);
    }

    /**
     * A controlled shutdown, before {@link #close} when the broker stops cleanly: stops heartbeating
     * (a heartbeat after the fence would unfence this broker), asks the coordinators to fence this
     * incarnation now ({@link ControlPlane#shutdown}), so that its leaderships move at once instead
     * of when its session expires, and waits until this broker's image has the fence (the replica
     * manager has then handed its leaderships over: acks=all produces waiting on it are answered
     * NOT_LEADER_OR_FOLLOWER with the new leader). The metadata thread goes on until {@link #close}.
     * Everything within {@code timeout}; a broker that never registered has nothing to hand over.
     *
     * @return whether the image has this broker fenced within the timeout
     */
    public boolean controlledShutdown(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Thread membership;
        synchronized (this) {
            lock.lock();
            try {
                if (stopping || leaving) {
                    return false;
                }
                leaving = true;
                stopRequested.signalAll();
            } finally {
                lock.unlock();
            }
            membership = membershipThread;
        }
        if (membership == null) {
            return false;
        }
        // A heartbeat in flight is cut short; should it still reach the coordinators after the
        // shutdown request, they do not unfence an incarnation that asked to shut down.
        membership.interrupt();
        try {
            if (!membership.join(remaining(deadline))) {
                log.warn("{} did not stop for the controlled shutdown", membership.getName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (!registered) {
            log.info("broker {} was not registered: no controlled shutdown", config.brokerId());
            return false;
        }
        long version;
        try {
            version = controlPlane.shutdown(config.brokerId(), incarnationId, remaining(deadline));
        } catch (ControlPlaneException e) {
            log.warn(
                    "broker {} controlled shutdown failed ({}: {}); its leaderships move when its session expires",
                    config.brokerId(),
                    e.kind(),
                    e.getMessage());
            return false;
        }
        try {
            boolean applied = awaitVersion(version, remaining(deadline));
            if (applied) {
                log.info(
                        "broker {} incarnation {}: controlled shutdown, fenced at metadata version {}",
                        config.brokerId(),
                        incarnationId,
                        version);
            } else {
                log.warn(
                        "broker {} controlled shutdown: fenced at version {}, not yet in this broker's image after {}",
                        config.brokerId(),
                        version,
                        timeout);
            }
            return applied;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Duration remaining(long deadlineNanos) {
        return Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime()));
    }

    /** Stops both threads and waits for them (at most {@link Config#joinTimeout()} each). */
    @Override
    public synchronized void close() {
        lock.lock();
        try {
            if (stopping) {
                return;
            }
            stopping = true;
            stopRequested.signalAll();
        } finally {
            lock.unlock();
        }
        for (Thread thread : new Thread[] {membershipThread, metadataThread}) {
            if (thread == null) {
                continue;
            }
            thread.interrupt();
            try {
                if (!thread.join(config.joinTimeout())) {
                    log.warn("{} did not stop within {}", thread.getName(), config.joinTimeout());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        registered = false;
        log.info("broker {} incarnation {} stopped following the cluster", config.brokerId(), incarnationId);
    }

    // ---- MetadataView

    @Override
    public ClusterImage image() {
        return image.get();
    }

    @Override
    public boolean awaitVersion(long version, Duration timeout) throws InterruptedException {
        long remainingNanos = timeout.toNanos();
        lock.lock();
        try {
            while (notifiedVersion < version) {
                if (remainingNanos <= 0 || stopping) {
                    return false;
                }
                long before = remainingNanos;
                remainingNanos = versionReached.awaitNanos(remainingNanos);
                RequestWaits.waited(before - Math.max(0, remainingNanos));
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int brokerId() {
        return config.brokerId();
    }

    @Override
    public boolean isActive() {
        if (!registered) {
            return false;
        }
        BrokerInfo self = image.get().brokers().get(config.brokerId());
        if (self == null || !self.incarnationId().equals(incarnationId) || self.fenced()) {
            return false;
        }
        Instant last = lastHeartbeat;
        return last != null && Duration.between(last, clock.instant()).compareTo(config.sessionTimeout()) < 0;
    }

    // ---- for health and metrics

    public Uuid incarnationId() {
        return incarnationId;
    }

    public Status status() {
        ClusterImage current = image.get();
        BrokerInfo self = current.brokers().get(config.brokerId());
        boolean fenced = self == null || !self.incarnationId().equals(incarnationId) || self.fenced();
        return new Status(
                incarnationId, registered, isActive(), fenced, Optional.ofNullable(lastHeartbeat), current.version());
    }

    /** Heartbeats that failed since start. */
    public long heartbeatFailures() {
        return heartbeatFailures.get();
    }

    /** Metadata long polls that failed since start. */
    public long metadataPollFailures() {
        return metadataPollFailures.get();
    }

    /** Registrations that failed since start. */
    public long registrationFailures() {
        return registrationFailures.get();
    }

    // ---- the membership thread

    private void membershipLoop(List<BrokerEndpoint> endpoints) {
        boolean failing = false;
        while (!membershipStopRequested()) {
            if (!registered) {
                try {
                    long version = controlPlane.register(
                            config.brokerId(), incarnationId, config.rack().orElse(null), endpoints);
                    registered = true;
                    log.info(
                            "broker {} incarnation {} registered at metadata version {}",
                            config.brokerId(),
                            incarnationId,
                            version);
                } catch (ControlPlaneException e) {
                    if (membershipStopRequested()) {
                        return;
                    }
                    registrationFailures.incrementAndGet();
                    logFailure(failing, "registration", e);
                    failing = true;
                    if (!pauseMembership(config.retryBackoff())) {
                        return;
                    }
                    continue;
                }
            }
            Instant sentAt = clock.instant();
            try {
                long leaderVersion = controlPlane.heartbeat(config.brokerId(), incarnationId);
                lastHeartbeat = sentAt;
                if (failing) {
                    log.info("broker {} heartbeats again", config.brokerId());
                    failing = false;
                }
                long have = image.get().version();
                if (leaderVersion < have && !fullFetchRequested) {
                    log.warn(
                            "the coordinators' metadata version {} is below this broker's {}: their state was replaced;"
                                    + " fetching the full image",
                            leaderVersion,
                            have);
                    fullFetchRequested = true;
                }
            } catch (ControlPlaneException e) {
                if (membershipStopRequested()) {
                    return;
                }
                heartbeatFailures.incrementAndGet();
                if (e.kind() == Kind.STALE_EPOCH || e.kind() == Kind.UNKNOWN_BROKER) {
                    log.warn(
                            "broker {} incarnation {} is not the registered one ({}); registering again",
                            config.brokerId(),
                            incarnationId,
                            e.getMessage());
                    registered = false;
                    failing = true;
                    continue;
                }
                logFailure(failing, "heartbeat", e);
                failing = true;
            }
            if (!pauseMembership(config.heartbeatInterval())) {
                return;
            }
        }
    }

    // ---- the metadata thread

    private void metadataLoop() {
        boolean failing = false;
        while (!stopRequested()) {
            boolean full = fullFetchRequested;
            ClusterImage current = image.get();
            OptionalLong after =
                    full || current.version() < 0 ? OptionalLong.empty() : OptionalLong.of(current.version());
            MetadataDelta delta;
            try {
                delta = controlPlane.fetchMetadata(after, config.metadataMaxWait());
            } catch (ControlPlaneException e) {
                if (stopRequested()) {
                    return;
                }
                metadataPollFailures.incrementAndGet();
                logFailure(failing, "metadata poll", e);
                failing = true;
                if (!pause(config.retryBackoff())) {
                    return;
                }
                continue;
            }
            if (failing) {
                log.info("broker {} follows the metadata again", config.brokerId());
                failing = false;
            }
            if (full && delta.full()) {
                fullFetchRequested = false;
                publish(current, ClusterImage.EMPTY.apply(delta));
            } else if (delta.version() > current.version()) {
                publish(current, current.apply(delta));
            }
        }
    }

    /** Makes {@code next} the image, runs the listeners, then wakes the waiters. */
    private void publish(ClusterImage previous, ClusterImage next) {
        image.set(next);
        log.debug("metadata version {} -> {}", previous.version(), next.version());
        for (MetadataListener listener : listeners) {
            try {
                listener.onImage(previous, next);
            } catch (RuntimeException e) {
                // A defect in one listener must not stop the broker from following the metadata.
                log.error("metadata listener {} failed on version {}", listener, next.version(), e);
            }
        }
        lock.lock();
        try {
            notifiedVersion = next.version();
            versionReached.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---- helpers

    private boolean stopRequested() {
        lock.lock();
        try {
            return stopping;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the membership thread must end: stopping, or leaving in a controlled shutdown. */
    private boolean membershipStopRequested() {
        lock.lock();
        try {
            return stopping || leaving;
        } finally {
            lock.unlock();
        }
    }

    /** {@link #pause} for the membership thread: also ends at a controlled shutdown. */
    private boolean pauseMembership(Duration duration) {
        long remainingNanos = duration.toNanos();
        lock.lock();
        try {
            while (!stopping && !leaving && remainingNanos > 0) {
                remainingNanos = stopRequested.awaitNanos(remainingNanos);
            }
            return !stopping && !leaving;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Parks for {@code duration} or until {@link #close}; false when stopping. */
    private boolean pause(Duration duration) {
        long remainingNanos = duration.toNanos();
        lock.lock();
        try {
            while (!stopping && remainingNanos > 0) {
                remainingNanos = stopRequested.awaitNanos(remainingNanos);
            }
            return !stopping;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** The first failure of a run at WARN, the repeats at DEBUG (a coordinator outage is one event). */
    private void logFailure(boolean alreadyFailing, String what, ControlPlaneException e) {
        if (alreadyFailing) {
            log.debug("broker {} {} failed again: {}", config.brokerId(), what, e.getMessage());
        } else {
            log.warn("broker {} {} failed: {} ({})", config.brokerId(), what, e.getMessage(), e.kind());
        }
    }
}
