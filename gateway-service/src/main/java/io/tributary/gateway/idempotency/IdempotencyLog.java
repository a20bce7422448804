package io.tributary.gateway.idempotency;

import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The idempotency log: claims and results of {@code Idempotency-Key}s in an internal topic, shared by
 * every gateway replica through the cluster, and this replica's bounded cache of what it has read.
 *
 * <p>A request with a key: {@link #claim} appends a claim record to the key's partition ({@code
 * acks=all}) and learns its offset {@code o}; the replica's <em>tail reader</em> (one consumer
 * assigned every partition, one virtual thread) reads the partition up to {@code o}, folding each
 * key's records ({@link KeyHistory}), and hands over the decision for this replica's own claim.
 * Since every replica folds the same records in the same order with the same rule, the first claim
 * of a key wins on whichever replica it was made, and every later claim of it sees that. The winner
 * does the request, then {@link #recordResult} (or {@link #release}) before it answers.
 *
 * <p>Bounds. The cache holds at most {@code cacheMaxEntries} keys and about {@code cacheMaxBytes}
 * (keys plus stored bodies); a key is dropped {@code ttl + maxClockSkew} after its winning claim.
 * When a key must be dropped earlier (the cache is full) the partition becomes <em>incomplete</em>
 * until that key's TTL ends: a decision for a claim there (or for a key first seen while it was
 * incomplete) is made by scanning the partition from {@code ttl + maxClockSkew} before the claim up
 * to it with a consumer of its own (counted by {@link Listener#scanned}). At start the tail reader
 * begins at {@code ttl + maxClockSkew} before now (Kafka's offsets-for-times), so it only ever holds
 * keys that may still be live.
 *
 * <p>Threading: the tail reader is the only user of its consumer; the cache and the positions are
 * guarded by one lock, on whose condition the requests wait for their claims to be read.
 * Thread-safe. Started lazily by the first claim (a gateway never sent a key never touches the
 * topic).
 */
public final class IdempotencyLog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyLog.class);

    /** The pause after a cluster error before the tail reader polls again, or before opening the log is tried again (no tight loop). */
    private static final Duration ERROR_PAUSE = Duration.ofMillis(200);

    /** Bytes counted per cache entry besides its key and stored body (the maps, the history). */
    private static final int ENTRY_OVERHEAD_BYTES = 200;

    /**
     * The idempotency log's settings (the edge checks them).
     *
     * @param topic the internal topic
     * @param partitions its partition count when the gateway creates it
     * @param replicationFactor its replication factor when the gateway creates it; empty: the
     *     cluster's default
     * @param ttl how long a key is remembered after its winning claim
     * @param claimTimeout how long a claim without a result blocks its key (409); then the next claim
     *     of the same request takes over
     * @param maxClockSkew how far the replicas' clocks may disagree (a key is kept this much longer)
     * @param cacheMaxEntries most keys this replica's cache holds
     * @param cacheMaxBytes about the most bytes of keys and stored bodies it holds
     * @param maxStoredResponseBytes largest body stored in a result; a larger one is stored as its
     *     SHA-256 and length only
     * @param clusterTimeout the longest one call to the cluster, or the wait for a claim to be read,
     *     may take
     * @param pollWait one poll of the tail reader
     */
    public record Config(
            String topic,
            int partitions,
            Optional<Short> replicationFactor,
            Duration ttl,
            Duration claimTimeout,
            Duration maxClockSkew,
            int cacheMaxEntries,
            long cacheMaxBytes,
            long maxStoredResponseBytes,
            Duration clusterTimeout,
            Duration pollWait) {}

    /** What the metrics hear. */
    public interface Listener {
        /** A claim was decided: {@code execute}, {@code takeover}, {@code replay}, {@code in_progress}, {@code reused}. */
        void decided(String outcome);

        /** A decision needed a scan of its partition (the cache had dropped live keys). */
        void scanned();
    }

    /** This replica's own claim, appended and read. */
    public record Claimed(IdempotencyKey key, int partition, long offset, long timestampMs, String requestSha256) {}

    /** The claim and its decision. */
    public record Claim(Claimed claimed, Decision decision) {}

    private record OwnClaim(int partition, long offset) {}

    private record OwnDecision(Decision decision, long claimTimestampMs) {}

    private static final class Entry {
        final int partition;
        final KeyHistory history;
        final boolean uncertain;
        long bytes;

        Entry(int partition, KeyHistory history, boolean uncertain) {
            this.partition = partition;
            this.history = history;
            this.uncertain = uncertain;
        }
    }

    /** A decision the cache cannot make: scan the partition. */
    private static final Decision SCAN = new Decision.InProgress(Duration.ZERO);

    private final Config config;
    private final Admin admin;
    private final Supplier<Producer<byte[], byte[]>> producer;
    private final Supplier<Consumer<byte[], byte[]>> consumers;
    private final JsonMapper json;
    private final InstantSource clock;
    private final String replicaId;
    private final Listener listener;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition advanced = lock.newCondition();
    // guarded by lock
    private final LinkedHashMap<String, Entry> cache = new LinkedHashMap<>();
    private final Map<OwnClaim, OwnDecision> own = new HashMap<>();
    private long cacheBytes;
    private long[] evictedLiveUntilMs = new long[0];
    private int partitions;
    private boolean started;
    private boolean closed;
    private Thread reader;
    private Consumer<byte[], byte[]> tailConsumer;
    private boolean warnedUnreadable;

    public IdempotencyLog(
            Config config,
            Admin admin,
            Supplier<Producer<byte[], byte[]>> producer,
            Supplier<Consumer<byte[], byte[]>> consumers,
            JsonMapper json,
            InstantSource clock,
            String replicaId,
            Listener listener) {
        this.config = config;
        this.admin = admin;
        this.producer = producer;
        this.consumers = consumers;
        this.json = json;
        this.clock = clock;
        this.replicaId = replicaId;
        this.listener = listener;
    }

    /**
     * Claims {@code key} for the request with digest {@code requestSha256} and decides what happens
     * (see {@link KeyHistory}). An {@link Decision.Execute} obliges the caller to {@link
     * #recordResult} or {@link #release}. 503 when the cluster does not answer within the cluster
     * timeout; a claim written but not decided in time is left as it is (it may have won: its key
     * then answers 409 until the claim timeout).
     */
    public Claim claim(IdempotencyKey key, String requestSha256) {
        start();
        int partition = key.partition(partitions);
        RecordMetadata m = append(key, partition, new IdempotencyRecord.Claim(requestSha256, replicaId));
        Claimed claimed = new Claimed(key, partition, m.offset(), m.timestamp(), requestSha256);
        // a claim not decided in time stays unreleased: it may have won (then its key waits out the
        // claim timeout); releasing a claim that lost would free another request's key
        Decision d = awaitDecision(claimed);
        if (d == SCAN) {
            listener.scanned();
            d = scan(claimed);
        }
        listener.decided(
                switch (d) {
                    case Decision.Execute e -> e.takeover() ? "takeover" : "execute";
                    case Decision.Replay r -> "replay";
                    case Decision.InProgress p -> "in_progress";
                    case Decision.Reused r -> "reused";
                });
        return new Claim(claimed, d);
    }

    /** Records the answer of an executed claim: status and body (stored when small enough). */
    public void recordResult(Claimed claimed, int status, String contentType, byte[] body) {
        boolean store = body.length <= config.maxStoredResponseBytes();
        try {
            appendResult(claimed, status, contentType, body, store);
        } catch (ProblemException e) {
            if (!store || e.type() != ProblemType.RECORD_TOO_LARGE) {
                throw e;
            }
            // the topic's max.message.bytes is below the stored body (escaped as JSON text): keep the digest
            log.warn(
                    "A result of {} bytes does not fit the idempotency log {}; storing its digest only",
                    body.length,
                    config.topic());
            appendResult(claimed, status, contentType, body, false);
        }
    }

    private void appendResult(Claimed claimed, int status, String contentType, byte[] body, boolean store) {
        append(
                claimed.key(),
                claimed.partition(),
                new IdempotencyRecord.Result(
                        claimed.offset(),
                        claimed.timestampMs(),
                        claimed.requestSha256(),
                        status,
                        contentType,
                        store ? Optional.of(body) : Optional.empty(),
                        RequestDigest.sha256Hex(body),
                        body.length));
    }

    /** Frees the key of an executed claim whose request did nothing (the next claim executes it). */
    public void release(Claimed claimed, int status) {
        append(
                claimed.key(),
                claimed.partition(),
                new IdempotencyRecord.Release(
                        claimed.offset(), claimed.timestampMs(), claimed.requestSha256(), status));
    }

    /** Keys in the cache now. */
    public int cachedKeys() {
        lock.lock();
        try {
            return cache.size();
        } finally {
            lock.unlock();
        }
    }

    private RecordMetadata append(IdempotencyKey key, int partition, IdempotencyRecord record) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(
                config.topic(), partition, clock.millis(), key.recordKey(), IdempotencyRecord.encode(record, json));
        try {
            return producer.get().send(r).get(config.clusterTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while writing to the cluster.");
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            throw KafkaProblems.toProblem(e);
        }
    }

    private Decision awaitDecision(Claimed c) {
        long deadline = System.nanoTime() + config.clusterTimeout().toNanos();
        OwnClaim id = new OwnClaim(c.partition(), c.offset());
        lock.lock();
        try {
            while (!own.containsKey(id)) {
                long left = deadline - System.nanoTime();
                if (closed || left <= 0) {
                    own.remove(id);
                    throw new ProblemException(
                            ProblemType.CLUSTER_UNAVAILABLE,
                            "The idempotency log %s was not read up to offset %d of partition %d within %d ms."
                                    .formatted(
                                            config.topic(),
                                            c.offset(),
                                            c.partition(),
                                            config.clusterTimeout().toMillis()));
                }
                advanced.awaitNanos(left);
            }
            return own.remove(id).decision();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(
                    ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while reading the idempotency log.");
        } finally {
            lock.unlock();
        }
    }

    // ---- the tail reader

    private void start() {
        lock.lock();
        try {
            if (started) {
                return;
            }
            if (closed) {
                throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "The gateway is stopping.");
            }
            int n = ensureTopic();
            Consumer<byte[], byte[]> consumer = consumers.get();
            List<TopicPartition> tps = new ArrayList<>(n);
            for (int p = 0; p < n; p++) {
                tps.add(new TopicPartition(config.topic(), p));
            }
            try {
                consumer.assign(tps);
                seekToWindowRetrying(consumer, tps);
            } catch (RuntimeException e) {
                consumer.close();
                throw KafkaProblems.toProblem(e);
            } catch (InterruptedException e) {
                consumer.close();
                Thread.currentThread().interrupt();
                throw new ProblemException(
                        ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while opening the idempotency log.");
            }
            partitions = n;
            evictedLiveUntilMs = new long[n];
            tailConsumer = consumer;
            started = true;
            reader = Thread.ofVirtual().name("idempotency-tail").start(this::readLoop);
            log.info(
                    "Idempotency log {} ({} partitions) read by replica {} from {} ms back",
                    config.topic(),
                    n,
                    replicaId,
                    windowMs());
        } finally {
            lock.unlock();
        }
    }

    /** How far back a reader starts: every claim that may still be live. */
    private long windowMs() {
        return config.ttl().plus(config.maxClockSkew()).toMillis();
    }

    /**
     * {@link #seekToWindow}, tried again while the cluster answers with a retriable error, up to
     * {@code cluster-timeout}: a log this gateway just created may be in the brokers' metadata
     * before its partitions are open on their leaders (an offsets lookup then answers
     * UNKNOWN_TOPIC_OR_PARTITION for a moment).
     */
    private void seekToWindowRetrying(Consumer<byte[], byte[]> consumer, List<TopicPartition> tps)
            throws InterruptedException {
        long deadline = System.nanoTime() + config.clusterTimeout().toNanos();
        while (true) {
            try {
                seekToWindow(consumer, tps, clock.millis());
                return;
            } catch (RetriableException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                log.debug("The idempotency log {} is not ready yet, trying again: {}", config.topic(), e.toString());
                Thread.sleep(ERROR_PAUSE);
            }
        }
    }

    private void seekToWindow(Consumer<byte[], byte[]> consumer, List<TopicPartition> tps, long nowMs) {
        Map<TopicPartition, Long> times = new HashMap<>();
        tps.forEach(tp -> times.put(tp, Math.max(0, nowMs - windowMs())));
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(times, config.clusterTimeout());
        Map<TopicPartition, Long> ends = consumer.endOffsets(tps, config.clusterTimeout());
        for (TopicPartition tp : tps) {
            OffsetAndTimestamp at = found.get(tp);
            consumer.seek(tp, at != null ? at.offset() : ends.get(tp));
        }
    }

    /** Creates the topic when it is missing; its partition count. */
    private int ensureTopic() {
        try {
            try {
                NewTopic t = new NewTopic(config.topic(), Optional.of(config.partitions()), config.replicationFactor())
                        .configs(Map.of(
                                "cleanup.policy",
                                "delete",
                                "retention.ms",
                                Long.toString(config.ttl()
                                        .plus(config.claimTimeout())
                                        .plus(config.maxClockSkew())
                                        .toMillis()),
                                // segments roll once a TTL, so retention can delete them about a
                                // TTL after their last key expired (not after Kafka's default week)
                                "segment.ms",
                                Long.toString(config.ttl().toMillis())));
                admin.createTopics(List.of(t)).all().get(config.clusterTimeout().toMillis(), TimeUnit.MILLISECONDS);
                log.info("Created the idempotency log {} with {} partitions", config.topic(), config.partitions());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            TopicDescription d = admin.describeTopics(List.of(config.topic()))
                    .allTopicNames()
                    .get(config.clusterTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .get(config.topic());
            return d.partitions().size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(
                    ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while creating the idempotency log.");
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            throw KafkaProblems.toProblem(e);
        }
    }

    private void readLoop() {
        while (true) {
            try {
                var records = tailConsumer.poll(config.pollWait());
                lock.lock();
                try {
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        apply(r);
                    }
                    expire(clock.millis());
                    advanced.signalAll();
                } finally {
                    lock.unlock();
                }
            } catch (WakeupException e) {
                if (isClosed()) {
                    return;
                }
            } catch (KafkaException e) {
                if (isClosed()) {
                    return;
                }
                log.warn("Reading the idempotency log {} failed: {}", config.topic(), e.toString());
                pause();
            } catch (RuntimeException e) {
                // a defect: keep reading (a dead reader would turn every later key into a 503)
                log.error("The idempotency log reader of {} failed", config.topic(), e);
                pause();
            }
        }
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    private void pause() {
        lock.lock();
        try {
            if (!closed) {
                advanced.awaitNanos(ERROR_PAUSE.toNanos());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** Folds one record into the cache; decides this replica's own claims. Holds the lock. */
    private void apply(ConsumerRecord<byte[], byte[]> r) {
        Optional<IdempotencyRecord> decoded = IdempotencyRecord.decode(r.value(), json);
        if (decoded.isEmpty() || r.key() == null) {
            if (!warnedUnreadable) {
                warnedUnreadable = true;
                log.warn(
                        "Skipping a record that is not an idempotency record at {}-{}@{} (further ones are skipped silently)",
                        r.topic(),
                        r.partition(),
                        r.offset());
            }
            return;
        }
        String key = new String(r.key(), StandardCharsets.UTF_8);
        Entry e = cache.get(key);
        boolean incomplete = evictedLiveUntilMs[r.partition()] > r.timestamp();
        if (e == null) {
            e = new Entry(r.partition(), new KeyHistory(config.ttl(), config.claimTimeout()), incomplete);
            cache.put(key, e);
            e.bytes = ENTRY_OVERHEAD_BYTES + 2L * key.length();
            cacheBytes += e.bytes;
        }
        long before = e.history.storedBytes();
        switch (decoded.get()) {
            case IdempotencyRecord.Claim c -> {
                Decision d = e.history.claim(r.offset(), r.timestamp(), c.requestSha256());
                if (d instanceof Decision.Execute) {
                    // keep the cache in the order of the winners' claims, so the eldest expires first
                    cache.remove(key);
                    cache.put(key, e);
                }
                if (replicaId.equals(c.replica())) {
                    own.put(
                            new OwnClaim(r.partition(), r.offset()),
                            new OwnDecision(e.uncertain || incomplete ? SCAN : d, r.timestamp()));
                }
            }
            case IdempotencyRecord.Result res -> e.history.result(r.offset(), res);
            case IdempotencyRecord.Release rel -> e.history.release(r.offset(), rel);
        }
        long grown = e.history.storedBytes() - before;
        e.bytes += grown;
        cacheBytes += grown;
        evictOverBounds(clock.millis());
    }

    /** Drops the eldest keys while the cache is over a bound; a live one makes its partition incomplete. */
    private void evictOverBounds(long nowMs) {
        Iterator<Map.Entry<String, Entry>> it = cache.entrySet().iterator();
        while ((cache.size() > config.cacheMaxEntries() || cacheBytes > config.cacheMaxBytes()) && it.hasNext()) {
            Entry e = it.next().getValue();
            it.remove();
            cacheBytes -= e.bytes;
            long liveUntil = e.history.winnerTimestampMs().orElse(Long.MIN_VALUE / 2) + windowMs();
            if (liveUntil > nowMs) {
                evictedLiveUntilMs[e.partition] = Math.max(evictedLiveUntilMs[e.partition], liveUntil);
            }
        }
    }

    /** Drops keys whose TTL (plus the clock skew) is over, eldest first, and own decisions never collected. */
    private void expire(long nowMs) {
        Iterator<Map.Entry<String, Entry>> it = cache.entrySet().iterator();
        while (it.hasNext()) {
            Entry e = it.next().getValue();
            Optional<Long> winner = e.history.winnerTimestampMs();
            if (winner.isPresent() && winner.get() + windowMs() > nowMs) {
                break;
            }
            it.remove();
            cacheBytes -= e.bytes;
        }
        // decisions whose request gave up waiting (it timed out before the reader got there)
        long abandonedBeforeMs = nowMs - config.claimTimeout().toMillis();
        own.values().removeIf(d -> d.claimTimestampMs() < abandonedBeforeMs);
    }

    // ---- the scan (the cache dropped live keys)

    private Decision scan(Claimed c) {
        TopicPartition tp = new TopicPartition(config.topic(), c.partition());
        String key = new String(c.key().recordKey(), StandardCharsets.UTF_8);
        KeyHistory h = new KeyHistory(config.ttl(), config.claimTimeout());
        long deadline = System.nanoTime() + config.clusterTimeout().toNanos();
        try (Consumer<byte[], byte[]> consumer = consumers.get()) {
            consumer.assign(List.of(tp));
            seekToWindow(consumer, List.of(tp), c.timestampMs());
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(config.pollWait())) {
                    if (r.key() == null || !key.equals(new String(r.key(), StandardCharsets.UTF_8))) {
                        continue;
                    }
                    Optional<IdempotencyRecord> rec = IdempotencyRecord.decode(r.value(), json);
                    if (rec.isEmpty()) {
                        continue;
                    }
                    if (r.offset() == c.offset()) {
                        return h.claim(r.offset(), r.timestamp(), c.requestSha256());
                    }
                    switch (rec.get()) {
                        case IdempotencyRecord.Claim cl -> h.claim(r.offset(), r.timestamp(), cl.requestSha256());
                        case IdempotencyRecord.Result res -> h.result(r.offset(), res);
                        case IdempotencyRecord.Release rel -> h.release(r.offset(), rel);
                    }
                }
            }
        } catch (KafkaException e) {
            throw KafkaProblems.toProblem(e);
        }
        throw new ProblemException(
                ProblemType.CLUSTER_UNAVAILABLE,
                "Scanning partition %d of the idempotency log %s took longer than %d ms."
                        .formatted(
                                c.partition(),
                                config.topic(),
                                config.clusterTimeout().toMillis()));
    }

    @Override
    public void close() {
        Thread t;
        lock.lock();
        try {
            closed = true;
            advanced.signalAll();
            t = reader;
            if (tailConsumer != null) {
                tailConsumer.wakeup();
            }
        } finally {
            lock.unlock();
        }
        if (t != null) {
            try {
                t.join(config.clusterTimeout().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (tailConsumer != null) {
            tailConsumer.close(java.time.Duration.ZERO);
        }
    }
}
