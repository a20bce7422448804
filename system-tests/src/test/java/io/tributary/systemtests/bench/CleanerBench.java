package io.tributary.systemtests.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The log cleaner on Apache Kafka and on Tributary, in the same run ({@code bin/bench-cleaner}):
 * how fast each broker's cleaner compacts the same log, in MB of log per second and per CPU-second
 * of the broker process.
 *
 * <p>Per round (the targets' order alternating) and target: a topic of one partition with {@code
 * cleanup.policy=delete} (nothing cleans it yet), {@code segment.bytes} of {@code --segment-bytes};
 * {@code --records} records of {@code --record-size} bytes over {@code --keys} keys (each key about
 * {@code records / keys} times, in a seeded random order, the same on both), uncompressed, written
 * by one producer; once the partition's {@code .log} files stop growing, the broker process's CPU
 * time is read ({@code /proc/PID/stat}) and the topic is altered to {@code cleanup.policy=compact},
 * {@code min.cleanable.dirty.ratio=0.01}; the bench then reads the partition directory's {@code
 * .log} files (both brokers lay a partition out as {@code <data>/<topic>-0/<base offset>.log}) every
 * {@value #POLL_MS} ms until they shrank (the cleaner's first swap comes only after it read the
 * whole dirty section) and then until their size has not changed for {@code --settle-ms}. {@code clean_s}: from
 * the alter to the last change of the size; {@code mb_per_s}: the bytes before (every segment but
 * the active one is cleaned) over that; {@code cpu_s}: the broker's CPU time over the same span
 * (the settle wait included: an idle broker's share is small); {@code mb_per_cpu_s}.
 *
 * <p>Then, per round and target, {@code append-delete} and {@code append-compact} ({@link #append}):
 * the same records written to a topic that does not compact and to one whose cleaner compacts
 * each segment as it closes: the append throughput of a broker while its cleaner runs, against
 * the same broker without cleaning.
 *
 * <p>Arguments are {@code --name=value}: {@code targets} ({@code kafka=host:port:DATA:PID,...}),
 * {@code rounds}, {@code records}, {@code record-size}, {@code keys}, {@code segment-bytes}, {@code
 * settle-ms}, {@code csv}.
 */
public final class CleanerBench {

    static final int POLL_MS = 100;

    static final List<String> COLUMNS = List.of(
            "case",
            "target",
            "round",
            "records",
            "bytes_before",
            "bytes_after",
            "clean_s",
            "mb_per_s",
            "cpu_s",
            "mb_per_cpu_s",
            "seconds",
            "records_per_s",
            "error");

    private record Target(String name, String bootstrap, Path data, long pid) {}

    private final Map<String, String> o;
    private final Path csv;

    private CleanerBench(Map<String, String> o) throws IOException {
        this.o = o;
        this.csv = Path.of(o.get("csv"));
        if (!Files.exists(csv) || Files.size(csv) == 0) {
            Files.writeString(csv, String.join(",", COLUMNS) + "\n");
        }
    }

    public static void main(String[] args) throws Exception {
        new CleanerBench(GroupBench.options(args)).run();
    }

    private void run() throws Exception {
        List<Target> targets = new ArrayList<>();
        for (String entry : o.get("targets").split(",")) {
            String[] f = entry.split("=", 2)[1].split(":", 4);
            targets.add(new Target(entry.split("=", 2)[0], f[0] + ":" + f[1], Path.of(f[2]), Long.parseLong(f[3])));
        }
        int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        for (int round = 1; round <= rounds; round++) {
            List<Target> order = new ArrayList<>(targets);
            if (round % 2 == 0) {
                order = order.reversed();
            }
            for (Target target : order) {
                Map<String, String> row = row("clean", target, round);
                try {
                    clean(target, round, row);
                } catch (Exception e) {
                    row.put("error", String.valueOf(e));
                }
                GroupBench.progress("  %s round %d: %s", target.name(), round, row);
                write(row);
                // The order alternates too: one broker's page cache and JIT warm the other case.
                for (String policy : round % 2 == 0 ? List.of("compact", "delete") : List.of("delete", "compact")) {
                    Map<String, String> append = row("append-" + policy, target, round);
                    try {
                        append(target, round, policy, append);
                    } catch (Exception e) {
                        append.put("error", String.valueOf(e));
                    }
                    GroupBench.progress("  %s round %d: %s", target.name(), round, append);
                    write(append);
                }
            }
        }
    }

    private static Map<String, String> row(String caseName, Target target, int round) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("case", caseName);
        row.put("target", target.name());
        row.put("round", Integer.toString(round));
        return row;
    }

    /**
     * {@code append-POLICY}: the same records as {@code clean} written to a new topic with {@code
     * cleanup.policy=POLICY} ({@code compact} with {@code min.cleanable.dirty.ratio=0.01}, so the
     * cleaner compacts each segment as soon as it closes, while the producer goes on): records per
     * second from the first send to the last acknowledgement, and the log's bytes right then.
     */
    private void append(Target target, int round, String policy, Map<String, String> row) throws Exception {
        long records = Long.parseLong(o.getOrDefault("records", "400000"));
        int recordSize = Integer.parseInt(o.getOrDefault("record-size", "1024"));
        int keys = Integer.parseInt(o.getOrDefault("keys", "20000"));
        String topic = "bench-append-" + policy + "-r" + round;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                            .configs(Map.of(
                                    "cleanup.policy",
                                    policy,
                                    "retention.ms",
                                    "-1",
                                    "min.cleanable.dirty.ratio",
                                    "0.01",
                                    "segment.bytes",
                                    o.getOrDefault("segment-bytes", "16777216")))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            long started = System.nanoTime();
            fill(target, topic, records, recordSize, keys);
            double seconds = (System.nanoTime() - started) / 1e9;
            row.put("records", Long.toString(records));
            row.put("bytes_after", Long.toString(logBytes(partitionDir(target.data(), topic))));
            row.put("seconds", format(seconds, 3));
            row.put("records_per_s", format(records / seconds, 0));
            admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        }
    }

    private void clean(Target target, int round, Map<String, String> row) throws Exception {
        long records = Long.parseLong(o.getOrDefault("records", "400000"));
        int recordSize = Integer.parseInt(o.getOrDefault("record-size", "1024"));
        int keys = Integer.parseInt(o.getOrDefault("keys", "20000"));
        long settleMs = Long.parseLong(o.getOrDefault("settle-ms", "3000"));
        String topic = "bench-clean-r" + round;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                            .configs(Map.of(
                                    "cleanup.policy", "delete",
                                    "retention.ms", "-1",
                                    "segment.bytes", o.getOrDefault("segment-bytes", "16777216")))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            fill(target, topic, records, recordSize, keys);
            Path partition = partitionDir(target.data(), topic);
            long before = settledSize(partition, settleMs).bytes();
            long cpuBefore = cpuTicks(target.pid());
            long started = System.nanoTime();
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            admin.incrementalAlterConfigs(Map.of(
                            resource,
                            List.of(
                                    new AlterConfigOp(
                                            new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET),
                                    new AlterConfigOp(
                                            new ConfigEntry("min.cleanable.dirty.ratio", "0.01"),
                                            AlterConfigOp.OpType.SET))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            awaitShrinking(partition, before);
            Settled after = settledSize(partition, settleMs);
            long cpuAfter = cpuTicks(target.pid());
            double seconds = (after.lastChangeNanos() - started) / 1e9;
            double cpu = (cpuAfter - cpuBefore) / (double) CLOCK_TICKS;
            row.put("records", Long.toString(records));
            row.put("bytes_before", Long.toString(before));
            row.put("bytes_after", Long.toString(after.bytes()));
            if (after.bytes() >= before) {
                throw new IllegalStateException("the log did not shrink: " + before + " bytes before, " + after.bytes()
                        + " after; no cleaning within the settle wait");
            }
            row.put("clean_s", format(seconds, 3));
            row.put("mb_per_s", format(before / 1e6 / seconds, 1));
            row.put("cpu_s", format(cpu, 2));
            row.put("mb_per_cpu_s", format(before / 1e6 / cpu, 1));
            admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        }
    }

    /** {@code getconf CLK_TCK}: 100 on Linux, what {@code /proc/PID/stat} counts CPU time in. */
    static final int CLOCK_TICKS = 100;

    /** The process's user plus system CPU time in clock ticks ({@code /proc/PID/stat} fields 14 and 15). */
    static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.US_ASCII);
        // The command name (field 2) is in parentheses and may hold spaces: split after it.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static void fill(Target target, String topic, long records, int recordSize, int keys) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        Random random = new Random(17);
        byte[] value = new byte[recordSize];
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (long i = 0; i < records; i++) {
                random.nextBytes(value);
                byte[] key = "key-%08d".formatted(random.nextInt(keys)).getBytes(StandardCharsets.US_ASCII);
                producer.send(new ProducerRecord<>(topic, 0, key, value.clone()));
            }
            producer.flush();
        }
    }

    private static Path partitionDir(Path data, String topic) throws IOException {
        try (Stream<Path> paths = Files.walk(data)) {
            return paths.filter(Files::isDirectory)
                    .filter(d -> d.getFileName().toString().equals(topic + "-0"))
                    .findFirst()
                    .orElseThrow(() -> new IOException("no directory " + topic + "-0 under " + data));
        }
    }

    private record Settled(long bytes, long lastChangeNanos) {}

    /** Reads the partition's {@code .log} files until their total size has not changed for {@code settleMs}. */
    private static Settled settledSize(Path partition, long settleMs) throws Exception {
        long size = logBytes(partition);
        long changed = System.nanoTime();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (System.nanoTime() - changed < TimeUnit.MILLISECONDS.toNanos(settleMs)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the size of " + partition + " did not settle in 10 minutes");
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
            long now = logBytes(partition);
            if (now != size) {
                size = now;
                changed = System.nanoTime();
            }
        }
        return new Settled(size, changed);
    }

    /** How long the cleaner may take to change the log at all once it may clean it. */
    static final long START_WAIT_MINUTES = 5;

    /**
     * Waits until the partition's {@code .log} files are smaller than {@code before}: the cleaner's
     * first swap (it first reads the whole dirty section into its offset map, seconds for a big log).
     */
    private static void awaitShrinking(Path partition, long before) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(START_WAIT_MINUTES);
        while (logBytes(partition) >= before) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the log of " + partition + " was not cleaned within " + START_WAIT_MINUTES + " minutes");
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
    }

    private static long logBytes(Path partition) throws IOException {
        try (Stream<Path> files = Files.list(partition)) {
            long total = 0;
            for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .toList()) {
                try {
                    total += Files.size(f);
                } catch (java.nio.file.NoSuchFileException swappedMeanwhile) {
                    // a cleaner's swap renamed or deleted it between the listing and the size
                }
            }
            return total;
        }
    }

    private static String format(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private void write(Map<String, String> row) throws IOException {
        String line = COLUMNS.stream()
                .map(c -> row.getOrDefault(c, "").replaceAll("[,\\r\\n]+", " "))
                .collect(Collectors.joining(","));
        Files.writeString(csv, line + "\n", StandardOpenOption.APPEND);
    }
}
