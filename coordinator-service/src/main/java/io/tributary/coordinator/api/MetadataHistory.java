package io.tributary.coordinator.api;

import io.tributary.coordinator.metadata.AclSet;
import io.tributary.coordinator.metadata.Broker;
import io.tributary.coordinator.metadata.ClientQuotas;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.ScramCredentials;
import io.tributary.coordinator.metadata.Topic;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded in-memory history of what each metadata version changed, fed by the state machine's
 * listener on this voter, and the long poll over it.
 *
 * <p>Each entry keeps only the names of the topics and the ids of the brokers a version touched
 * (found by diffing the previous image this history saw against the new one, so a jump, such as a
 * snapshot installed from the leader, is still a correct delta). The first image observed (this
 * voter's snapshot and replay at start) is the base: a caller older than it gets the full image,
 * because deletions before it are unknown here. An answer for {@code after} takes
 * the union of the touched names of every later entry and reads their current state from the latest
 * image: a touched topic that is gone is in {@code deletedTopics}. SCRAM credentials travel whole:
 * an answer carries every user's credentials when any changed after {@code after} (and in a full
 * image), none otherwise; they are bounded by {@code max-scram-users}. ACLs travel whole the same
 * way, bounded by {@code max-acls}, and client quotas, bounded by {@code max-quota-entities}. When {@code after} is older than
 * the oldest entry (the history was trimmed, or this voter started from a snapshot later than it),
 * the answer is the full image.
 *
 * <p>Thread-safety: all state is guarded by one lock; waiters park on its condition (a virtual
 * thread unmounts) and are woken by {@link #observe}.
 */
public final class MetadataHistory {

    /**
     * What changed after a version: a delta, or the full image when the history does not reach back.
     * {@code scramCredentials}: every user's credentials when they changed (always in a full image),
     * empty when they did not; {@code acls} and {@code clientQuotas} likewise.
     */
    public record Changes(
            long version,
            boolean full,
            List<Broker> brokers,
            List<Topic> topics,
            List<String> deletedTopics,
            Optional<ScramCredentials> scramCredentials,
            Optional<AclSet> acls,
            Optional<ClientQuotas> clientQuotas) {
        public Changes {
            brokers = List.copyOf(brokers);
            topics = List.copyOf(topics);
            deletedTopics = List.copyOf(deletedTopics);
            Objects.requireNonNull(scramCredentials, "scramCredentials");
            Objects.requireNonNull(acls, "acls");
            Objects.requireNonNull(clientQuotas, "clientQuotas");
        }

        public boolean isEmpty() {
            return !full
                    && brokers.isEmpty()
                    && topics.isEmpty()
                    && deletedTopics.isEmpty()
                    && scramCredentials.isEmpty()
                    && acls.isEmpty()
                    && clientQuotas.isEmpty();
        }
    }

    private record Entry(
            long version, Set<Integer> brokers, Set<String> topics, boolean scram, boolean acls, boolean quotas) {}

    private final int maxEntries;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Deque<Entry> entries = new ArrayDeque<>();
    private MetadataImage latest = MetadataImage.EMPTY;
    /** The version just before the oldest entry: answers for {@code after >= base} are deltas. */
    private long base = MetadataImage.EMPTY.version();
    /** Whether an image was observed; the first one becomes the base, not an entry. */
    private boolean started;

    public MetadataHistory(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("history length must be 1 or more, got " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    /** Records a newer image (older or equal versions are ignored) and wakes every waiter. */
    public void observe(MetadataImage image) {
        lock.lock();
        try {
            if (image.version() <= latest.version()) {
                return;
            }
            if (!started) {
                // The first image may come from a snapshot: what happened before it (deletions
                // above all) is unknown here, so callers older than it get the full image.
                started = true;
                base = image.version();
                latest = image;
                changed.signalAll();
                return;
            }
            boolean scram = !latest.scramCredentials()
                    .asMap()
                    .equals(image.scramCredentials().asMap());
            boolean acls = !latest.acls().equals(image.acls());
            boolean quotas = !latest.clientQuotas().equals(image.clientQuotas());
            entries.addLast(new Entry(
                    image.version(), changedBrokers(latest, image), changedTopics(latest, image), scram, acls, quotas));
            while (entries.size() > maxEntries) {
                base = entries.removeFirst().version();
            }
            latest = image;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The newest version observed. */
    public long version() {
        lock.lock();
        try {
            return latest.version();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The latest image once it reaches {@code version} (at most {@code maxWait}; then the latest
     * there is): a write acknowledged by a new leader may reach this voter a moment later.
     */
    public MetadataImage awaitImage(long version, Duration maxWait) throws InterruptedException {
        long remainingNanos = maxWait.toNanos();
        lock.lock();
        try {
            while (latest.version() < version && remainingNanos > 0) {
                remainingNanos = changed.awaitNanos(remainingNanos);
            }
            return latest;
        } finally {
            lock.unlock();
        }
    }

    /** Everything in the latest image. */
    public Changes full() {
        lock.lock();
        try {
            return fullOf(latest);
        } finally {
            lock.unlock();
        }
    }

    /**
     * What changed after {@code after}, as soon as there is something (at most {@code maxWait}); an
     * empty delta at the latest version when nothing changed in time.
     */
    public Changes changesSince(long after, Duration maxWait) throws InterruptedException {
        long remainingNanos = maxWait.toNanos();
        lock.lock();
        try {
            while (latest.version() <= after && remainingNanos > 0) {
                remainingNanos = changed.awaitNanos(remainingNanos);
            }
            if (latest.version() <= after) {
                return new Changes(
                        latest.version(),
                        false,
                        List.of(),
                        List.of(),
                        List.of(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty());
            }
            if (after < base) {
                return fullOf(latest);
            }
            Set<Integer> brokerIds = new TreeSet<>();
            Set<String> topicNames = new TreeSet<>();
            boolean scram = false;
            boolean acls = false;
            boolean quotas = false;
            for (Entry e : entries) {
                if (e.version() > after) {
                    brokerIds.addAll(e.brokers());
                    topicNames.addAll(e.topics());
                    scram |= e.scram();
                    acls |= e.acls();
                    quotas |= e.quotas();
                }
            }
            List<Broker> brokers = new ArrayList<>();
            for (int id : brokerIds) {
                Broker b = latest.brokers().get(id);
                if (b != null) {
                    brokers.add(b);
                }
            }
            List<Topic> topics = new ArrayList<>();
            List<String> deleted = new ArrayList<>();
            for (String name : topicNames) {
                Topic t = latest.topics().get(name);
                if (t != null) {
                    topics.add(t);
                } else {
                    deleted.add(name);
                }
            }
            return new Changes(
                    latest.version(),
                    false,
                    brokers,
                    topics,
                    deleted,
                    scram ? Optional.of(latest.scramCredentials()) : Optional.empty(),
                    acls ? Optional.of(latest.acls()) : Optional.empty(),
                    quotas ? Optional.of(latest.clientQuotas()) : Optional.empty());
        } finally {
            lock.unlock();
        }
    }

    private static Changes fullOf(MetadataImage image) {
        return new Changes(
                image.version(),
                true,
                List.copyOf(image.brokers().values()),
                List.copyOf(image.topics().values()),
                List.of(),
                Optional.of(image.scramCredentials()),
                Optional.of(image.acls()),
                Optional.of(image.clientQuotas()));
    }

    private static Set<Integer> changedBrokers(MetadataImage before, MetadataImage after) {
        return changed(before.brokers(), after.brokers());
    }

    private static Set<String> changedTopics(MetadataImage before, MetadataImage after) {
        return changed(before.topics(), after.topics());
    }

    private static <K extends Comparable<K>, V> Set<K> changed(Map<K, V> before, Map<K, V> after) {
        Set<K> keys = new TreeSet<>();
        for (Map.Entry<K, V> e : after.entrySet()) {
            V old = before.get(e.getKey());
            if (old != e.getValue() && !Objects.equals(old, e.getValue())) {
                keys.add(e.getKey());
            }
        }
        for (K k : before.keySet()) {
            if (!after.containsKey(k)) {
                keys.add(k);
            }
        }
        return Set.copyOf(keys);
    }
}
