package io.tributary.systemtests.kafka;

import io.tributary.common.testing.BackgroundFailures;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;

/**
 * Writes 0, 1, 2... as decimal text, each keyed by itself (so the values spread over every
 * partition by the default partitioner), {@value #RECORDS_PER_TICK} records every {@value
 * #TICK_MS} ms from a scheduler thread, with an idempotent {@code acks=all} producer, until {@link
 * #stop()}, or up to a {@link #limit} the test raises step by step (so that a scenario writes the
 * same records on every target). Remembers every acknowledged value and the end offset of each
 * partition.
 */
public final class SequenceProducer implements AutoCloseable {

    /** Records sent per tick: about 500 records/s, enough to keep every member busy. */
    static final int RECORDS_PER_TICK = 10;

    static final long TICK_MS = 20;

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "sequence-producer");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicLong next = new AtomicLong();
    private volatile long limit = Long.MAX_VALUE;
    private final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    private final Map<Integer, Long> endOffsets = new ConcurrentHashMap<>();
    private final Map<Long, String> failures = new ConcurrentHashMap<>();
    private final BackgroundFailures background;

    /**
     * A producer for {@code topic} of {@code target} whose ticks report what they throw to {@code
     * background}; nothing is sent before {@link #start()}.
     */
    public SequenceProducer(KafkaTarget target, String topic, BackgroundFailures background) {
        this.topic = topic;
        this.background = background;
        this.producer = Clients.producer(
                target,
                Map.of(
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                        ProducerConfig.ACKS_CONFIG, "all",
                        ProducerConfig.LINGER_MS_CONFIG, "5"));
    }

    /**
     * Sends only the values below {@code total} from now on: the ticks idle once they are all
     * sent, until a higher limit. No limit (unbounded) until the first call.
     */
    public void limit(long total) {
        limit = total;
    }

    /**
     * Waits until every value below the {@link #limit} has been sent and answered (acknowledged or
     * failed), and returns each partition's end offset by the acknowledgements then.
     */
    public Map<Integer, Long> awaitLimit() {
        long total = limit;
        if (total == Long.MAX_VALUE) {
            throw new IllegalStateException("no limit set: the producer sends until stop()");
        }
        Awaitility.await("the producer's " + total + " values sent and answered")
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ofMillis(50))
                .failFast(
                        "background work failed (this producer or another task reporting to its collector)",
                        background::check)
                .until(() -> next.get() >= total && acknowledged.size() + failures.size() >= total);
        return endOffsets();
    }

    /** Starts sending, from a scheduler thread. */
    public void start() {
        scheduler.scheduleWithFixedDelay(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * One tick's sends. What it throws is reported: a scheduled task that throws is cancelled
     * without a word, and the producer would silently stop sending.
     */
    private void tick() {
        try {
            send();
        } catch (RuntimeException | Error e) {
            background.report("sequence-producer", e);
            throw e;
        }
    }

    private void send() {
        for (int i = 0; i < RECORDS_PER_TICK && next.get() < limit; i++) {
            long value = next.getAndIncrement();
            byte[] bytes = Long.toString(value).getBytes(StandardCharsets.UTF_8);
            producer.send(new ProducerRecord<>(topic, bytes, bytes), (metadata, exception) -> {
                if (exception != null) {
                    failures.put(value, exception.toString());
                } else {
                    acknowledged.add(value);
                    endOffsets.merge(metadata.partition(), metadata.offset() + 1, Math::max);
                }
            });
        }
    }

    /** Stops sending and waits for every send's answer; fails if a tick failed or did not end. */
    public void stop() throws InterruptedException {
        scheduler.shutdown();
        if (!scheduler.awaitTermination(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            background.report(
                    "sequence-producer", new AssertionError("a tick still running after " + Clients.PATIENCE));
        }
        producer.flush();
        background.check();
    }

    /** How many values were handed to the producer so far. */
    public long sent() {
        return next.get();
    }

    /** The values the cluster acknowledged so far. */
    public Set<Long> acknowledged() {
        return Set.copyOf(acknowledged);
    }

    /** Each partition's end offset as the producer was told (the last acknowledged offset + 1). */
    public Map<Integer, Long> endOffsets() {
        return new TreeMap<>(endOffsets);
    }

    /** Failed sends, value to error (a few shown). */
    public List<String> failures() {
        return failures.entrySet().stream()
                .limit(5)
                .map(e -> e.getKey() + ": " + e.getValue())
                .toList();
    }

    /** How many sends failed. */
    public int failureCount() {
        return failures.size();
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        producer.close();
    }
}
