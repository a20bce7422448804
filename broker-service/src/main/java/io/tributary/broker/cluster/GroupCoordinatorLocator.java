package io.tributary.broker.cluster;

import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where consumer groups are served (the coordinators' Raft leader's Kafka endpoint), learned from
 * the control plane ({@link ControlPlane#groupCoordinator()}) and cached, for FindCoordinator.
 *
 * <p><b>Why a cache with a background refresh.</b> FindCoordinator runs on a connection's thread; a
 * control-plane call may take seconds (retries across coordinators during an election), and every
 * consumer of a group asks on start and after each coordinator failover. So an answer younger than
 * {@link Config#refreshAfter()} is served as is; an older one starts one refresh on a virtual
 * thread (never two at once) and is still served while younger than {@link Config#maxAge()}
 * (a stale coordinator answers NOT_COORDINATOR and the client asks again); without a usable answer
 * the caller waits for the refresh at most {@link Config#maxWait()} and otherwise gets "not known
 * yet", which FindCoordinator answers with the retriable COORDINATOR_NOT_AVAILABLE. A failed lookup
 * is remembered as "not known" for {@link Config#retryFailedAfter()}, so a control plane that is
 * down is asked once per that interval, not once per request; that interval is short (200 ms by
 * default, a client's retry backoff), because after a coordinator failover the lookup made during
 * the election fails and every group's members wait on its answer: remembered for the refresh
 * interval it held their commits back up to 2 s after a new leader was serving (bin/bench-groups'
 * failover case).
 *
 * <p>Thread-safety: safe for concurrent use; state is guarded by one lock, waiters park on its
 * condition.
 */
public final class GroupCoordinatorLocator {

    /**
     * The locator's bounds.
     *
     * @param refreshAfter an answer older than this is refreshed in the background (default 2 s)
     * @param maxAge an answer older than this is not served any more (default 30 s)
     * @param maxWait how long a request waits for a lookup when no answer may be served (default 500 ms)
     * @param retryFailedAfter a failed lookup ("not known") older than this is looked up again
     *     (default 200 ms; at most {@code refreshAfter})
     */
    public record Config(Duration refreshAfter, Duration maxAge, Duration maxWait, Duration retryFailedAfter) {

        public static final Config DEFAULTS = new Config(
                Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofMillis(500), Duration.ofMillis(200));

        public Config {
            if (!refreshAfter.isPositive()
                    || maxAge.compareTo(refreshAfter) < 0
                    || maxWait.isNegative()
                    || !retryFailedAfter.isPositive()
                    || retryFailedAfter.compareTo(refreshAfter) > 0) {
                throw new IllegalArgumentException(
                        "need 0 < refreshAfter <= maxAge, maxWait >= 0 and 0 < retryFailedAfter <= refreshAfter, got "
                                + refreshAfter + ", " + maxAge + ", " + maxWait + ", " + retryFailedAfter);
            }
        }
    }

    /** What the locator knows: the coordinator, or why there is none. */
    public sealed interface Lookup {
        /** Groups are served here. */
        record Found(GroupCoordinator coordinator) implements Lookup {}

        /** No coordinator is known (yet): the reason, for the error message. */
        record NotAvailable(String reason) implements Lookup {}
    }

    private record Known(Lookup lookup, Instant at) {}

    private static final Logger log = LoggerFactory.getLogger(GroupCoordinatorLocator.class);

    private final ControlPlane controlPlane;
    private final InstantSource clock;
    private final Config config;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition looked = lock.newCondition();
    private Known known;
    /**
     * The answer of the latest finished lookup, never forgotten: what a caller that waited for a
     * lookup gets, even if {@link #invalidate()} cleared {@link #known} between the lookup's end
     * and the caller's wake-up (the wait releases the lock).
     */
    private Lookup latest;

    private boolean refreshing;
    private long lookups;

    public GroupCoordinatorLocator(ControlPlane controlPlane, InstantSource clock, Config config) {
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Where groups are served, from the cache or a lookup of at most {@link Config#maxWait()}. */
    public Lookup lookup() {
        lock.lock();
        try {
            Instant now = clock.instant();
            if (known != null && age(known, now).compareTo(fresh(known.lookup())) < 0) {
                return known.lookup();
            }
            startRefresh();
            if (known != null
                    && known.lookup() instanceof Lookup.Found
                    && age(known, now).compareTo(config.maxAge()) < 0) {
                return known.lookup();
            }
            long before = lookups;
            long remainingNanos = config.maxWait().toNanos();
            while (lookups == before && remainingNanos > 0) {
                remainingNanos = looked.awaitNanos(remainingNanos);
            }
            if (lookups != before) {
                return latest;
            }
            return new Lookup.NotAvailable("the coordinators' control plane did not name a group coordinator within "
                    + config.maxWait().toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Lookup.NotAvailable("interrupted while looking the group coordinator up");
        } finally {
            lock.unlock();
        }
    }

    /**
     * Forgets the cached answer (a caller found it wrong: the coordinator there answered
     * NOT_COORDINATOR or could not be reached); the next {@link #lookup} asks the control plane.
     */
    public void invalidate() {
        lock.lock();
        try {
            known = null;
        } finally {
            lock.unlock();
        }
    }

    /** How long an answer is served without a new lookup: a failed one a shorter time. */
    private Duration fresh(Lookup lookup) {
        return lookup instanceof Lookup.Found ? config.refreshAfter() : config.retryFailedAfter();
    }

    private static Duration age(Known k, Instant now) {
        return Duration.between(k.at(), now);
    }

    /** Starts a lookup on a virtual thread unless one runs; the caller holds the lock. */
    private void startRefresh() {
        if (refreshing) {
            return;
        }
        refreshing = true;
        Thread.ofVirtual().name("group-coordinator-lookup").start(this::refresh);
    }

    private void refresh() {
        Lookup lookup;
        try {
            Optional<GroupCoordinator> coordinator = controlPlane.groupCoordinator();
            lookup = coordinator
                    .<Lookup>map(Lookup.Found::new)
                    .orElseGet(() -> new Lookup.NotAvailable("the coordinators know no leader right now"));
        } catch (RuntimeException e) {
            log.debug("group coordinator lookup failed: {}", e.getMessage());
            lookup = new Lookup.NotAvailable("the coordinators' control plane cannot be reached: " + e.getMessage());
        }
        lock.lock();
        try {
            known = new Known(lookup, clock.instant());
            latest = lookup;
            refreshing = false;
            lookups++;
            looked.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
