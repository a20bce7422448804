package io.tributary.systemtests.bench;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One member of {@link GroupBench}'s classic consumer groups, in a JVM of its own (so that the
 * bench can SIGKILL it: no leave, no revocation, only the coordinator's session timeout takes its
 * partitions away). A {@code KafkaConsumer} with kafka-clients' defaults but for what {@link
 * #properties} sets, subscribed to one topic, in a loop of {@code poll} (and, with {@code
 * --commit}, {@code commitSync} of what that poll returned).
 *
 * <p>It writes each event as one line on its standard output, after the marker {@value #MARKER},
 * with the time it happened as {@code System.nanoTime()} (HotSpot on Linux reads {@code
 * CLOCK_MONOTONIC}, one clock for every process of the host, so the bench compares these times
 * with its own and with other members'; {@code T} lets it check that):
 *
 * <pre>
 *   T t                  started (the bench checks the clock is shared)
 *   W t                  with {@code --hold}: the consumer is built, has read the topic's metadata
 *                        (connected to a broker) and waits for "subscribe"
 *   S t                  right before subscribe(); the first poll follows at once
 *   A t gen 0,3,7        onPartitionsAssigned: the partitions added ("-" for none), the generation
 *   R t gen 0,3          onPartitionsRevoked
 *   L t gen 7            onPartitionsLost
 *   E t                  right before the first poll after "resume" (the partitions resumed)
 *   D t p first last n   a poll returned n records of partition p, offsets first..last
 *   C t n                commitSync of n partitions' offsets returned
 *   F t error            commitSync threw
 *   H t n                the consumer's heartbeat-total became n (a heartbeat was answered)
 *   J t n                its join-total became n (a JoinGroup was answered)
 * </pre>
 *
 * {@code H} and {@code J} come from a thread that reads the consumer's metrics every {@value
 * #METRICS_POLL_MS} ms, so they are that late at most. Callbacks do not wait for the bench (a
 * callback that waited would add the pipe's latency to the rebalance being measured).
 *
 * <p>Standard input: {@code subscribe} (with {@code --hold}: subscribe now; the bench chooses the
 * moment, so that the JVM's start is not measured and the join meets the group's heartbeats at a
 * phase it sets), {@code resume} (with {@code --paused}: resume the partitions, which the member
 * pauses as they are assigned until then) and {@code leave} (close the consumer, which leaves the
 * group, and exit). Arguments: {@code --name=value}: {@code name}, {@code bootstrap},
 * {@code group}, {@code topic}, {@code assignor} ({@code range} or {@code cooperative-sticky}),
 * {@code session-timeout-ms}, {@code heartbeat-interval-ms}, {@code hold}, {@code paused} and
 * {@code commit} ({@code true} or {@code false}).
 */
public final class GroupBenchMember {

    static final String MARKER = "@@ ";

    /** How often the metrics thread reads heartbeat-total and join-total. */
    static final int METRICS_POLL_MS = 5;

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final PrintStream out;
    private final CountDownLatch subscribeAsked = new CountDownLatch(1);
    private volatile boolean resumeAsked;
    private volatile boolean leaveAsked;

    private GroupBenchMember(PrintStream out) {
        this.out = out;
    }

    /**
     * The consumer's settings: kafka-clients' defaults (auto commit every 5 s included, unless
     * {@code commit}: then the loop commits) but for the classic protocol named explicitly, the
     * assignor, the session timeout and heartbeat interval, byte-array deserializers and {@code
     * auto.offset.reset=earliest} (the topics are filled before the groups exist).
     */
    static Properties properties(Map<String, String> o) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, o.get("bootstrap"));
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, o.get("name"));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, o.get("group"));
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor(o.get("assignor")));
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, o.getOrDefault("session-timeout-ms", "10000"));
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, o.getOrDefault("heartbeat-interval-ms", "1000"));
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        if (Boolean.parseBoolean(o.getOrDefault("commit", "false"))) {
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        }
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    static String assignor(String name) {
        return switch (name) {
            case "range" -> RangeAssignor.class.getName();
            case "cooperative-sticky" -> CooperativeStickyAssignor.class.getName();
            default -> throw new IllegalArgumentException("assignor is range or cooperative-sticky, got " + name);
        };
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        // Keep the event stream clean: anything else printed goes to standard error.
        System.setOut(System.err);
        Map<String, String> options = GroupBench.options(args);
        new GroupBenchMember(out).run(options);
        out.flush();
        System.exit(0);
    }

    private void emit(String event) {
        synchronized (out) {
            out.println(MARKER + event);
            out.flush();
        }
    }

    private void run(Map<String, String> o) throws InterruptedException {
        boolean paused = Boolean.parseBoolean(o.getOrDefault("paused", "false"));
        boolean commit = Boolean.parseBoolean(o.getOrDefault("commit", "false"));
        emit("T " + System.nanoTime());
        Thread.ofPlatform().daemon().name("stdin").start(this::readCommands);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties(o));
        Thread metrics = Thread.ofPlatform().daemon().name("metrics").start(() -> watchMetrics(consumer));
        boolean resumed = !paused;
        try {
            if (Boolean.parseBoolean(o.getOrDefault("hold", "false"))) {
                // Connected, versions and metadata read, their classes loaded: what is measured
                // from the subscribe is the group's work, not this JVM's first request.
                consumer.partitionsFor(o.get("topic"));
                emit("W " + System.nanoTime());
                subscribeAsked.await();
                if (leaveAsked) {
                    consumer.close();
                    return;
                }
            }
            emit("S " + System.nanoTime());
            consumer.subscribe(List.of(o.get("topic")), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    long t = System.nanoTime();
                    if (paused && !resumeAsked) {
                        consumer.pause(partitions);
                    }
                    emit("A " + t + " " + consumer.groupMetadata().generationId() + " " + join(partitions));
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    emit("R " + System.nanoTime() + " "
                            + consumer.groupMetadata().generationId() + " " + join(partitions));
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    emit("L " + System.nanoTime() + " "
                            + consumer.groupMetadata().generationId() + " " + join(partitions));
                }
            });
            Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
            while (!leaveAsked) {
                if (!resumed && resumeAsked) {
                    consumer.resume(consumer.assignment());
                    resumed = true;
                    emit("E " + System.nanoTime());
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
                if (records.isEmpty()) {
                    continue;
                }
                long t = System.nanoTime();
                for (TopicPartition partition : records.partitions()) {
                    List<ConsumerRecord<byte[], byte[]>> list = records.records(partition);
                    long first = list.getFirst().offset();
                    long last = list.getLast().offset();
                    emit("D " + t + " " + partition.partition() + " " + first + " " + last + " " + list.size());
                    next.put(partition, new OffsetAndMetadata(last + 1));
                }
                if (commit) {
                    // Only what it still owns: a rebalance inside poll may have taken some away.
                    next.keySet().retainAll(consumer.assignment());
                    try {
                        consumer.commitSync(Map.copyOf(next));
                        emit("C " + System.nanoTime() + " " + next.size());
                        next.clear();
                    } catch (KafkaException e) {
                        emit("F " + System.nanoTime() + " " + e.getClass().getSimpleName());
                    }
                }
            }
            consumer.close();
        } finally {
            metrics.interrupt();
        }
    }

    private void readCommands() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                switch (line.strip()) {
                    case "subscribe" -> subscribeAsked.countDown();
                    case "resume" -> resumeAsked = true;
                    case "leave" -> {
                        leaveAsked = true;
                        subscribeAsked.countDown();
                    }
                    default -> System.err.println("unknown command: " + line);
                }
            }
        } catch (IOException e) {
            // the bench is gone
        }
        // Standard input closed: the bench ended; leave rather than linger.
        leaveAsked = true;
        subscribeAsked.countDown();
    }

    /**
     * Reports each change of the consumer's {@code heartbeat-total} and {@code join-total}
     * (consumer-coordinator-metrics, read through {@code KafkaMetric.metricValue()}, which is
     * thread-safe) until interrupted.
     */
    private void watchMetrics(KafkaConsumer<byte[], byte[]> consumer) {
        Map<String, Metric> watched = new TreeMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
            MetricName name = e.getKey();
            if (name.group().equals("consumer-coordinator-metrics")
                    && (name.name().equals("heartbeat-total") || name.name().equals("join-total"))) {
                watched.put(name.name(), e.getValue());
            }
        }
        if (watched.size() != 2) {
            System.err.println("consumer-coordinator-metrics heartbeat-total and join-total not found: " + watched);
            return;
        }
        Map<String, Long> seen = new HashMap<>();
        while (!Thread.currentThread().isInterrupted()) {
            long t = System.nanoTime();
            for (Map.Entry<String, Metric> e : watched.entrySet()) {
                long value = Math.round(((Number) e.getValue().metricValue()).doubleValue());
                Long before = seen.put(e.getKey(), value);
                if (before == null ? value > 0 : value != before) {
                    emit((e.getKey().startsWith("heartbeat") ? "H " : "J ") + t + " " + value);
                }
            }
            try {
                Thread.sleep(METRICS_POLL_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static String join(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return "-";
        }
        return partitions.stream()
                .map(TopicPartition::partition)
                .sorted()
                .map(String::valueOf)
                .collect(Collectors.joining(","));
    }
}
