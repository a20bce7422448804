package io.tributary.systemtests.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Differential ({@link Differential}): a Kafka Streams KTable restores its state from a changelog the
 * broker compacted, after its state directory was wiped. The application (the classic group
 * protocol, Kafka Streams' default) materializes a table of an input topic ({@value #PARTITIONS}
 * partitions) in a key-value store whose changelog Kafka Streams creates itself, compacted, with
 * the topic configs {@link #CHANGELOG_CONFIGS} so that the broker's log cleaner works on it within
 * the test: short segments, any dirty share cleanable, tombstones kept only briefly.
 *
 * <ol>
 *   <li>{@value #KEYS} keys get {@value #VERSIONS} values each, and every {@value #TOMBSTONE_EVERY}th
 *       key a tombstone after them: the instance's store holds the latest value of each live key.
 *   <li>After the changelog's segments are older than its {@code segment.ms}, one more record per
 *       partition (a sentinel key) rolls them, so everything written before lies in closed
 *       segments; the test waits until the cleaner compacted it: read from the start, no key of the
 *       changelog appears twice.
 *   <li>The instance closes, its state directory is deleted, and a new instance of the application
 *       starts with an empty one: it restores the store from the changelog (fewer records than were
 *       written to it, as the restore listener counts) and holds the same table.
 * </ol>
 *
 * Written down and compared with Apache Kafka's: the table before and after the restore, the
 * changelog's configs as described, its end offsets (the changelog writes: offsets are never
 * renumbered by cleaning), that no key appears twice once cleaned, and that the restore read fewer
 * records than the changelog's end offsets.
 */
@OnSharedTargets
class KTableRestoreIT {

    private static final Logger log = LoggerFactory.getLogger(KTableRestoreIT.class);

    static final int PARTITIONS = 2;
    static final int KEYS = 30;
    static final int VERSIONS = 8;
    static final int TOMBSTONE_EVERY = 5;
    static final String STORE = "latest";

    /** The changelog's topic configs, given through {@code Materialized.withLoggingEnabled}. */
    static final Map<String, String> CHANGELOG_CONFIGS = Map.of(
            "segment.ms", "300",
            "min.cleanable.dirty.ratio", "0.01",
            "min.compaction.lag.ms", "0",
            "delete.retention.ms", "60000");

    static final Duration PATIENCE = Clients.PATIENCE;

    @Test
    void aTableRestoresFromItsCompactedChangelogAfterItsStateIsWiped() {
        Differential.assertSameOutcome(KTableRestoreIT::scenario);
    }

    private static void scenario(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        String input = Clients.uniqueTopic("ktable-in");
        String applicationId = "ktable-app-" + UUID.randomUUID().toString().substring(0, 8);
        String changelog = applicationId + "-" + STORE + "-changelog";
        Path stateDirs = Files.createTempDirectory("ktable-restore-it-");
        List<Instance> running = new ArrayList<>();
        try (Admin admin = target.admin();
                KafkaProducer<byte[], byte[]> producer = Clients.producer(target, Map.of())) {
            Clients.createTopic(admin, input, PARTITIONS);
            Instance first = Instance.start("first", target, applicationId, input, stateDirs);
            running.add(first);

            Map<String, String> expected = new TreeMap<>();
            for (int version = 0; version < VERSIONS; version++) {
                for (int k = 0; k < KEYS; k++) {
                    String value = "v" + version;
                    producer.send(record(input, key(k), value));
                    expected.put(key(k), value);
                }
            }
            for (int k = 0; k < KEYS; k += TOMBSTONE_EVERY) {
                producer.send(record(input, key(k), null));
                expected.remove(key(k));
            }
            producer.flush();
            first.awaitTable("the workload", expected, target);
            outcome.add("table", expected);
            outcome.add("changelog configs", changelogConfigs(admin, changelog));

            // Past segment.ms, one more record per partition rolls the changelog's segments.
            TimeUnit.MILLISECONDS.sleep(2 * Long.parseLong(CHANGELOG_CONFIGS.get("segment.ms")));
            for (int p = 0; p < PARTITIONS; p++) {
                String sentinel = "~sentinel-" + p;
                producer.send(new ProducerRecord<>(input, p, bytes(sentinel), bytes("end")));
                expected.put(sentinel, "end");
            }
            producer.flush();
            first.awaitTable("the sentinels", expected, target);

            long written = awaitCompacted(target, changelog);
            outcome.add("changelog end offsets (records written to it)", written);
            outcome.add("changelog compacted: no key twice", true);

            first.close();
            running.remove(first);
            StreamsApps.deleteQuietly(stateDirs.resolve("first"));

            Instance second = Instance.start("second", target, applicationId, input, stateDirs);
            running.add(second);
            second.awaitTable("after the restore", expected, target);
            outcome.add("table after the restore", expected);
            long restored = second.restored.get();
            outcome.add("restore read fewer records than were written", restored > 0 && restored < written);
            log.info(
                    "{}: changelog {} written, {} restored\n  {}",
                    target,
                    written,
                    restored,
                    String.join("\n  ", outcome.lines()));
        } finally {
            for (Instance instance : running) {
                instance.close();
            }
            StreamsApps.deleteQuietly(stateDirs);
        }
    }

    private static String key(int k) {
        return "k%02d".formatted(k);
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String key, String value) {
        return new ProducerRecord<>(topic, bytes(key), value == null ? null : bytes(value));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The changelog's configs that {@link #CHANGELOG_CONFIGS} and Kafka Streams set, as described. */
    private static Map<String, String> changelogConfigs(Admin admin, String changelog) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, changelog);
        Config config = admin.describeConfigs(List.of(resource))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(resource);
        Map<String, String> shown = new TreeMap<>();
        for (String name : Stream.concat(CHANGELOG_CONFIGS.keySet().stream(), Stream.of("cleanup.policy"))
                .toList()) {
            shown.put(name, config.get(name).value());
        }
        return shown;
    }

    /**
     * Reads the changelog from its start until no key appears twice in it (the cleaner compacted
     * everything below the sentinels); returns the sum of its end offsets.
     */
    private static long awaitCompacted(KafkaTarget target, String changelog) throws Exception {
        List<TopicPartition> partitions = Clients.partitions(changelog, PARTITIONS);
        AtomicReference<String> last = new AtomicReference<>("not read yet");
        AtomicLong written = new AtomicLong();
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(target, Map.of())) {
            consumer.assign(partitions);
            Awaitility.await("the changelog " + changelog + " compacted")
                    .atMost(PATIENCE)
                    .pollInterval(Duration.ofMillis(300))
                    .until(() -> {
                        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
                        written.set(ends.values().stream()
                                .mapToLong(Long::longValue)
                                .sum());
                        List<ConsumerRecord<byte[], byte[]>> read = Clients.readFromStart(consumer, partitions, ends);
                        Map<String, Integer> seen = new HashMap<>();
                        for (ConsumerRecord<byte[], byte[]> r : read) {
                            seen.merge(
                                    r.partition() + "/" + new String(r.key(), StandardCharsets.UTF_8), 1, Integer::sum);
                        }
                        long twice = seen.values().stream().filter(n -> n > 1).count();
                        last.set(read.size() + " records read, " + twice + " keys more than once, end offsets " + ends);
                        return twice == 0;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "the changelog " + changelog + " was not compacted: " + last.get() + "\n" + target.logsHint(), e);
        }
        return written.get();
    }

    /** One instance of the application: one stream thread, its own state directory, a restore count. */
    private static final class Instance {
        final String name;
        final KafkaStreams streams;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong restored = new AtomicLong();

        private Instance(String name, KafkaStreams streams) {
            this.name = name;
            this.streams = streams;
        }

        static Instance start(String name, KafkaTarget target, String applicationId, String input, Path stateDirs)
                throws IOException {
            StreamsBuilder builder = new StreamsBuilder();
            builder.table(
                    input,
                    Consumed.with(Serdes.String(), Serdes.String()),
                    Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(STORE)
                            .withLoggingEnabled(CHANGELOG_CONFIGS));
            Properties properties = new Properties();
            properties.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
            properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers());
            properties.put(StreamsConfig.CLIENT_ID_CONFIG, "ktable-" + name);
            properties.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
            properties.put(
                    StreamsConfig.STATE_DIR_CONFIG,
                    Files.createDirectories(stateDirs.resolve(name)).toString());
            // The table's own changelog (not the input topic reused as one), every update written.
            properties.put(StreamsConfig.TOPOLOGY_OPTIMIZATION_CONFIG, StreamsConfig.NO_OPTIMIZATION);
            properties.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
            properties.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
            properties.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10_000);
            properties.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 1_000);
            KafkaStreams streams = new KafkaStreams(builder.build(), properties);
            Instance instance = new Instance(name, streams);
            streams.setGlobalStateRestoreListener(new StateRestoreListener() {
                @Override
                public void onRestoreStart(TopicPartition partition, String store, long start, long end) {}

                @Override
                public void onBatchRestored(TopicPartition partition, String store, long batchEnd, long restored) {
                    instance.restored.addAndGet(restored);
                }

                @Override
                public void onRestoreEnd(TopicPartition partition, String store, long total) {}
            });
            streams.setUncaughtExceptionHandler(e -> {
                instance.failure.compareAndSet(null, e);
                return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            });
            streams.start();
            return instance;
        }

        /** Waits until the store, queried through Kafka Streams, holds exactly {@code expected}. */
        void awaitTable(String phase, Map<String, String> expected, KafkaTarget target) {
            AtomicReference<Object> last = new AtomicReference<>("not queried yet");
            try {
                Awaitility.await(phase + ": the table of " + name)
                        .atMost(PATIENCE)
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> {
                            checkAlive();
                            Map<String, String> table = new TreeMap<>();
                            try {
                                ReadOnlyKeyValueStore<String, String> store =
                                        streams.store(StoreQueryParameters.fromNameAndType(
                                                STORE, QueryableStoreTypes.keyValueStore()));
                                try (KeyValueIterator<String, String> all = store.all()) {
                                    all.forEachRemaining(kv -> table.put(kv.key, kv.value));
                                }
                            } catch (InvalidStateStoreException notYet) {
                                last.set(streams.state() + ": " + notYet.getMessage());
                                return false;
                            }
                            last.set(table);
                            return table.equals(expected);
                        });
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(
                        phase + ": the table of " + name + " is " + last.get() + ", not " + expected + "\n"
                                + target.logsHint(),
                        e);
            }
        }

        void checkAlive() {
            StreamsApps.checkAlive(name, streams, failure);
        }

        void close() {
            StreamsApps.closeLeaving(streams);
        }
    }
}
