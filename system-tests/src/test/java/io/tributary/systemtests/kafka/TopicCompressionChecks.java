package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * The topic-codec scenario of {@link TopicConfigsIT}: a topic per {@code compression.type} codec,
 * each written by a kafka-clients producer compressing with another codec (the idempotent default),
 * then what a consumer reads back (offsets, keys, values, headers, timestamps relative to the send)
 * and, from a raw Fetch to the leader, the codec, CRC validity and producer fields of the stored
 * batches: the batches as a client receives them, which is how the broker stored them.
 */
final class TopicCompressionChecks {

    /** Records per topic: enough for a batch of several records, few enough to stay fast. */
    private static final int RECORDS = 30;

    /** Each topic codec and the codec its producer sends with: every codec is rewritten, from or into uncompressed too. */
    private static final Map<String, String> PRODUCER_CODEC_BY_TOPIC_CODEC = new LinkedHashMap<>();

    static {
        PRODUCER_CODEC_BY_TOPIC_CODEC.put("uncompressed", "zstd");
        PRODUCER_CODEC_BY_TOPIC_CODEC.put("gzip", "none");
        PRODUCER_CODEC_BY_TOPIC_CODEC.put("snappy", "gzip");
        PRODUCER_CODEC_BY_TOPIC_CODEC.put("lz4", "snappy");
        PRODUCER_CODEC_BY_TOPIC_CODEC.put("zstd", "lz4");
        PRODUCER_CODEC_BY_TOPIC_CODEC.put("producer", "lz4");
    }

    private TopicCompressionChecks() {}

    static void run(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        Map<String, String> topics = new LinkedHashMap<>();
        try (Admin admin = target.admin()) {
            List<NewTopic> create = new ArrayList<>();
            for (String codec : PRODUCER_CODEC_BY_TOPIC_CODEC.keySet()) {
                String topic = Clients.uniqueTopic("codec-" + codec);
                topics.put(codec, topic);
                Map<String, String> configs = new LinkedHashMap<>(Map.of("compression.type", codec));
                if (codec.equals("zstd")) {
                    configs.put("compression.zstd.level", "12");
                }
                create.add(new NewTopic(topic, Optional.of(1), Optional.empty()).configs(configs));
            }
            admin.createTopics(create).all().get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            Map<String, TopicDescription> descriptions = new LinkedHashMap<>();
            for (Map.Entry<String, String> e : topics.entrySet()) {
                descriptions.put(e.getKey(), Clients.awaitLeaders(admin, e.getValue(), 1));
            }
            long baseTimestamp = System.currentTimeMillis() - 60_000;
            for (Map.Entry<String, String> e : PRODUCER_CODEC_BY_TOPIC_CODEC.entrySet()) {
                String codec = e.getKey();
                String topic = topics.get(codec);
                String label = "topic " + codec + " from " + e.getValue();
                produce(target, topic, e.getValue(), baseTimestamp);
                outcome.add(label + ", read", read(target, topic, baseTimestamp));
                TopicDescription description = descriptions.get(codec);
                int leaderPort = target.brokerPorts()
                        .get(description.partitions().getFirst().leader().id());
                String stored = storedBatches(leaderPort, topic, description.topicId());
                // Kafka's rule, which the reference must show too: the topic's codec, or the producer's
                String expected =
                        codec.equals("producer") ? e.getValue() : codec.equals("uncompressed") ? "none" : codec;
                assertThat(stored)
                        .as(label)
                        .startsWith("codecs [" + expected + "], records " + RECORDS + ", CRCs valid true");
                outcome.add(label + ", stored batches", stored);
            }
        }
    }

    private static void produce(KafkaTarget target, String topic, String codec, long baseTimestamp) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(
                target,
                Map.of(
                        ProducerConfig.COMPRESSION_TYPE_CONFIG, codec,
                        ProducerConfig.LINGER_MS_CONFIG, "50",
                        ProducerConfig.ACKS_CONFIG, "all"))) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                byte[] key = i % 5 == 4 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
                byte[] value = i % 7 == 6
                        ? null
                        : ("value " + i + " ").repeat(1 + i % 4).getBytes(StandardCharsets.UTF_8);
                List<Header> headers = i % 3 == 0
                        ? List.of(new RecordHeader("h", ("header " + i).getBytes(StandardCharsets.UTF_8)))
                        : List.of();
                sent.add(producer.send(new ProducerRecord<>(topic, 0, baseTimestamp + i * 10L, key, value, headers)));
            }
            for (var future : sent) {
                future.get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
        }
    }

    /** Every record as a consumer sees it, one string. */
    private static List<String> read(KafkaTarget target, String topic, long baseTimestamp) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(target, Map.of())) {
            consumer.assign(List.of(tp));
            List<String> lines = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r :
                    Clients.readFromStart(consumer, List.of(tp), Map.of(tp, (long) RECORDS))) {
                List<String> headers = new ArrayList<>();
                r.headers().forEach(h -> headers.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8)));
                lines.add(r.offset() + " " + text(r.key()) + " " + text(r.value()) + " " + headers + " "
                        + r.timestampType() + "+" + (r.timestamp() - baseTimestamp));
            }
            assertThat(lines).hasSize(RECORDS);
            return lines;
        }
    }

    /**
     * The stored batches from offset 0, as a raw Fetch returns them: the distinct codecs, whether
     * every CRC is valid, whether every batch carries the idempotent producer's id and the first
     * base sequence. How many batches the producer made depends on timing, so that is not compared.
     */
    private static String storedBatches(int leaderPort, String topic, Uuid topicId) throws IOException {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (RawKafka raw = RawKafka.open(leaderPort)) {
            short version = raw.version(ApiKeys.FETCH);
            FetchResponse response = raw.connection()
                    .roundTrip(
                            FetchRequest.Builder.forConsumer(
                                            version,
                                            0,
                                            1,
                                            Map.of(
                                                    tp,
                                                    new FetchRequest.PartitionData(
                                                            topicId, 0, -1, 1 << 20, Optional.empty())))
                                    .build(version),
                            FetchResponse.class);
            FetchResponseData.PartitionData partition =
                    response.responseData(Map.of(topicId, topic), version).get(tp);
            if (partition.errorCode() != Errors.NONE.code()) {
                return "fetch " + Errors.forCode(partition.errorCode());
            }
            TreeSet<String> codecs = new TreeSet<>();
            boolean valid = true;
            boolean producerIds = true;
            long records = 0;
            Integer firstSequence = null;
            for (RecordBatch batch : ((Records) partition.records()).batches()) {
                codecs.add(batch.compressionType().name);
                valid &= batch.isValid();
                producerIds &= batch.hasProducerId();
                records += batch.lastOffset() - batch.baseOffset() + 1;
                if (firstSequence == null) {
                    firstSequence = batch.baseSequence();
                }
            }
            return "codecs " + codecs + ", records " + records + ", CRCs valid " + valid + ", producer ids "
                    + producerIds + ", first base sequence " + firstSequence;
        }
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }
}
