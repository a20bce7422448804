package io.tributary.systemtests.chaos;

import io.tributary.common.testing.BackgroundFailures;
import io.tributary.systemtests.chaos.Operation.Phase;
import io.tributary.systemtests.chaos.Operation.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workload: {@code producers} idempotent acks=all producers, each sending the values {@code
 * p<i>-0, p<i>-1, ...} round-robin over the topic's partitions, and {@code consumers} consumers that
 * read every partition from the beginning (assign and seek); every operation goes to the history.
 * {@link #stop()} stops them, then {@link #finalRead(Duration)} reads every partition from its
 * beginning up to its end offset (the high watermark) and records it.
 *
 * <p>A send's completion is {@link Phase#OK} with its offset, {@link Phase#FAIL} only for errors
 * raised before the record could reach a broker (too large, serialization, invalid topic), and
 * {@link Phase#UNKNOWN} for every other error: a timed-out or NOT_ENOUGH_REPLICAS answer may come
 * after an earlier attempt that was appended.
 *
 * <p>Those errors, and a consumer's Kafka errors while leaders move (it seeks again and goes on),
 * are the chaos the history records and the checker judges. Everything else is a failure of the
 * run, reported to the scenario's {@link BackgroundFailures} (which the scenario checks after each
 * round and at the end): a producer or consumer thread that ends before {@link #stop()} (from any
 * exception, or none), a send that the producer itself refuses for another reason than the three
 * definite ones (a producer closed or in a fatal state: every later send would fail too; recorded
 * as FAIL, then the thread ends), an error inside a send's callback (the client would only log it),
 * a consumer error that is not a {@link KafkaException} (a bug in this driver, which would
 * otherwise retry forever), a {@code WakeupException} or interruption nobody asked for, and a
 * thread that does not end within the delivery timeout plus 30 s of {@link #stop()}.
 */
public final class Workload implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Workload.class);

    /**
     * The workload's bounds.
     *
     * @param producers producer threads
     * @param consumers consumer threads
     * @param inFlight sends outstanding per producer at most
     * @param sendInterval pause between two sends of one producer
     * @param deliveryTimeout the producer's {@code delivery.timeout.ms}
     */
    public record Config(int producers, int consumers, int inFlight, Duration sendInterval, Duration deliveryTimeout) {
        public static Config defaults() {
            return new Config(2, 2, 20, Duration.ofMillis(5), Duration.ofSeconds(60));
        }
    }

    private final String bootstrap;
    private final String topic;
    private final int partitions;
    private final Config config;
    private final HistoryWriter history;
    private final BackgroundFailures background;
    private final List<BackgroundFailures.Task> tasks = new ArrayList<>();

    /** A workload whose producers and consumers report their failures to {@code background}. */
    public Workload(
            String bootstrap,
            String topic,
            int partitions,
            Config config,
            HistoryWriter history,
            BackgroundFailures background) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.partitions = partitions;
        this.config = config;
        this.history = history;
        this.background = background;
    }

    /** Starts the producer and consumer threads; each must run until {@link #stop()}. */
    public void start() {
        for (int i = 0; i < config.producers(); i++) {
            String name = "p" + i;
            tasks.add(background.startUntilStopped("chaos-" + name, task -> produce(task, name)));
        }
        for (int i = 0; i < config.consumers(); i++) {
            String name = "c" + i;
            tasks.add(background.startUntilStopped("chaos-" + name, task -> consume(task, name)));
        }
    }

    /**
     * Stops sending and reading; waits for the producers' outstanding sends to complete (a thread
     * still running after the delivery timeout plus 30 s is a failure).
     */
    public void stop() throws InterruptedException {
        tasks.forEach(BackgroundFailures.Task::requestStop);
        for (BackgroundFailures.Task task : tasks) {
            task.join(config.deliveryTimeout().plusSeconds(30));
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    private void produce(BackgroundFailures.Task task, String name) throws InterruptedException {
        var props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "chaos-" + name);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int)
                config.deliveryTimeout().toMillis());
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        var inFlight = new Semaphore(config.inFlight());
        try (var producer = new KafkaProducer<String, String>(props)) {
            for (long n = 0; !task.stopRequested(); n++) {
                String value = name + "-" + n;
                int partition = (int) (n % partitions);
                inFlight.acquire();
                history.append(
                        new Operation(name, Type.SEND, Phase.INVOKE, partition, -1, value, -1, history.now(), null));
                try {
                    producer.send(new ProducerRecord<>(topic, partition, null, value), (metadata, error) -> {
                        inFlight.release();
                        try {
                            complete(name, partition, value, metadata, error);
                        } catch (RuntimeException e) {
                            background.report(name + "'s send callback", e);
                        }
                    });
                } catch (RuntimeException error) {
                    // Thrown by send() itself: the record never entered the producer's buffer.
                    inFlight.release();
                    history.append(new Operation(
                            name, Type.SEND, Phase.FAIL, partition, -1, value, -1, history.now(), describe(error)));
                    if (!definite(error)) {
                        throw new IllegalStateException(name + ": the producer refused a send itself", error);
                    }
                }
                Thread.sleep(config.sendInterval());
            }
            producer.flush();
        }
    }

    /** Records a send's completion: OK with its offset, FAIL when definite, UNKNOWN otherwise. */
    private void complete(String name, int partition, String value, RecordMetadata metadata, Exception error) {
        if (error == null) {
            history.append(new Operation(
                    name,
                    Type.SEND,
                    Phase.OK,
                    metadata.partition(),
                    metadata.offset(),
                    value,
                    -1,
                    history.now(),
                    null));
        } else {
            history.append(new Operation(
                    name,
                    Type.SEND,
                    definite(error) ? Phase.FAIL : Phase.UNKNOWN,
                    partition,
                    -1,
                    value,
                    -1,
                    history.now(),
                    describe(error)));
        }
    }

    private static boolean definite(Exception error) {
        return error instanceof RecordTooLargeException
                || error instanceof SerializationException
                || error instanceof InvalidTopicException;
    }

    private static String describe(Throwable error) {
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }

    private Properties consumerProperties(String name) {
        var props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "chaos-" + name);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        return props;
    }

    private List<TopicPartition> topicPartitions() {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(topic, p));
        }
        return all;
    }

    private void consume(BackgroundFailures.Task task, String name) throws InterruptedException {
        List<TopicPartition> all = topicPartitions();
        Map<TopicPartition, Long> next = new HashMap<>();
        try (var consumer = new KafkaConsumer<String, String>(consumerProperties(name))) {
            consumer.assign(all);
            boolean seekNeeded = true;
            while (!task.stopRequested()) {
                try {
                    if (seekNeeded) {
                        Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(all, Duration.ofSeconds(10));
                        for (TopicPartition tp : all) {
                            long offset = next.getOrDefault(tp, beginnings.get(tp));
                            consumer.seek(tp, offset);
                            history.append(
                                    Operation.ok(name, Type.SEEK, tp.partition(), offset, null, -1, history.now()));
                        }
                        seekNeeded = false;
                    }
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        history.append(Operation.ok(
                                name,
                                Type.READ,
                                record.partition(),
                                record.offset(),
                                record.value(),
                                record.leaderEpoch().orElse(-1),
                                history.now()));
                        next.put(new TopicPartition(topic, record.partition()), record.offset() + 1);
                    }
                } catch (org.apache.kafka.common.errors.WakeupException | InterruptException e) {
                    throw e; // nobody wakes or interrupts this consumer: a failure of the run
                } catch (KafkaException e) {
                    // A leader moved or is down: seek explicitly (and record it) to where this consumer was.
                    log.info("consumer {}: {}; seeking again", name, describe(e));
                    seekNeeded = true;
                    Thread.sleep(200);
                }
            }
        }
    }

    /**
     * Reads every partition from its beginning to its end offset and records it (process {@code
     * final}: a SEEK per partition, every record as FINAL_READ, an END per partition). An attempt
     * that fails is retried whole until {@code timeout}; only a complete attempt is recorded.
     */
    public void finalRead(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<TopicPartition> all = topicPartitions();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            List<Operation> attempt = new ArrayList<>();
            try (var consumer = new KafkaConsumer<String, String>(consumerProperties("final"))) {
                consumer.assign(all);
                Map<TopicPartition, Long> ends = consumer.endOffsets(all, Duration.ofSeconds(10));
                Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(all, Duration.ofSeconds(10));
                for (TopicPartition tp : all) {
                    consumer.seek(tp, beginnings.get(tp));
                    attempt.add(Operation.ok(
                            "final", Type.SEEK, tp.partition(), beginnings.get(tp), null, -1, history.now()));
                }
                long readDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (all.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                    if (System.nanoTime() > readDeadline) {
                        throw new IllegalStateException("the final read did not reach the end offsets " + ends);
                    }
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                        if (record.offset() < ends.get(new TopicPartition(topic, record.partition()))) {
                            attempt.add(Operation.ok(
                                    "final",
                                    Type.FINAL_READ,
                                    record.partition(),
                                    record.offset(),
                                    record.value(),
                                    record.leaderEpoch().orElse(-1),
                                    history.now()));
                        }
                    }
                }
                for (TopicPartition tp : all) {
                    attempt.add(Operation.ok("final", Type.END, tp.partition(), ends.get(tp), null, -1, history.now()));
                }
                attempt.forEach(history::append);
                return;
            } catch (RuntimeException e) {
                last = e;
                log.info("final read attempt failed: {}; again", describe(e));
                Thread.sleep(1000);
            }
        }
        throw new IllegalStateException("no complete final read within " + timeout, last);
    }
}
