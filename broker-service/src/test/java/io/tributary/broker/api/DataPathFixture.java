package io.tributary.broker.api;

import static io.tributary.broker.testing.FixedMetadataView.broker;
import static io.tributary.broker.testing.FixedMetadataView.image;
import static io.tributary.broker.testing.FixedMetadataView.topic;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.replication.ReplicaManagerConfig;
import io.tributary.broker.testing.FixedMetadataView;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A broker's data path without a socket: broker 0's replica manager over real logs in a temporary
 * directory, a fixed cluster image, and the five handlers.
 *
 * <ul>
 *   <li>{@code orders} (2 partitions): replicas [0], led by 0 at epoch 5.
 *   <li>{@code remote}: replicas [1, 0], led by broker 1 at epoch 2 (broker 0 follows).
 *   <li>{@code replicated}: replicas and ISR [0, 1], led by 0 at epoch 1.
 *   <li>{@code strict}: replicas [0, 1], ISR [0], {@code min.insync.replicas=2}.
 *   <li>{@code lonely}: replicas [0], ISR [0], {@code min.insync.replicas=2} (above the replicas).
 * </ul>
 */
final class DataPathFixture implements AutoCloseable {

    static final int ME = 0;
    static final Uuid ORDERS = new Uuid(10, 1);
    static final Uuid REMOTE = new Uuid(10, 2);
    static final Uuid REPLICATED = new Uuid(10, 3);
    static final Uuid STRICT = new Uuid(10, 4);
    static final Uuid LONELY = new Uuid(10, 5);
    static final int ORDERS_EPOCH = 5;
    static final int OTHER_BROKER_PORT = 19093;

    final IndexStore store;
    final ReplicaManager replicas;
    final FixedMetadataView metadata;
    final ProduceHandler produce;
    final FetchHandler fetch;
    final ListOffsetsHandler listOffsets;
    final OffsetForLeaderEpochHandler offsetForLeaderEpoch;
    final DeleteRecordsHandler deleteRecords;
    private int correlationId;

    DataPathFixture(Path dir) {
        this(dir, Duration.ofSeconds(30));
    }

    DataPathFixture(Path dir, Duration produceMaxTimeout) {
        this(dir, produceMaxTimeout, DataPathMetrics.NONE);
    }

    DataPathFixture(Path dir, Duration produceMaxTimeout, DataPathMetrics produceMetrics) {
        store = IndexStore.open(dir.resolve("index"));
        replicas = new ReplicaManager(
                new ReplicaManagerConfig(
                        ME, dir.resolve("data"), LogConfig.defaults(), 1, ProducerStateConfig.defaults()),
                store,
                Clock.systemUTC(),
                Runnable::run);
        ClusterImage image = image(1, List.of(broker(0, 19092), broker(1, OTHER_BROKER_PORT)), topics());
        metadata = new FixedMetadataView(ME, image);
        replicas.onImage(ClusterImage.EMPTY, image);
        produce = new ProduceHandler(replicas, metadata, produceMaxTimeout, produceMetrics);
        fetch = new FetchHandler(replicas, metadata, Duration.ofSeconds(30), DataPathMetrics.NONE);
        listOffsets = new ListOffsetsHandler(replicas, metadata);
        offsetForLeaderEpoch = new OffsetForLeaderEpochHandler(replicas, metadata);
        deleteRecords = new DeleteRecordsHandler(replicas, metadata);
    }

    /** A DeleteRecords request's data: partition 0 of {@code topic} up to {@code offset}. */
    static DeleteRecordsRequestData deleteRecordsData(String topic, long offset) {
        var data = new DeleteRecordsRequestData().setTimeoutMs(1000);
        var topicData = new DeleteRecordsRequestData.DeleteRecordsTopic().setName(topic);
        topicData
                .partitions()
                .add(new DeleteRecordsRequestData.DeleteRecordsPartition()
                        .setPartitionIndex(0)
                        .setOffset(offset));
        data.topics().add(topicData);
        return data;
    }

    /** The one partition result of a DeleteRecords answer to {@link #deleteRecordsData}. */
    static DeleteRecordsResponseData.DeleteRecordsPartitionResult onlyPartition(DeleteRecordsResponse response) {
        return response.data()
                .topics()
                .iterator()
                .next()
                .partitions()
                .iterator()
                .next();
    }

    /** An OffsetForLeaderEpoch request's data: orders-0 at {@link #ORDERS_EPOCH}, from {@code replicaId}. */
    static OffsetForLeaderEpochRequestData ordersEpochEndData(int replicaId) {
        var topics = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        var topic = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic("orders");
        topic.partitions()
                .add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                        .setPartition(0)
                        .setLeaderEpoch(ORDERS_EPOCH)
                        .setCurrentLeaderEpoch(-1));
        topics.add(topic);
        return new OffsetForLeaderEpochRequestData().setTopics(topics).setReplicaId(replicaId);
    }

    static List<TopicInfo> topics() {
        TopicInfo strict = new TopicInfo(
                "strict",
                STRICT,
                Map.of("min.insync.replicas", "2"),
                List.of(new PartitionInfo(0, List.of(0, 1), 0, 0, List.of(0), 0)));
        TopicInfo lonely = new TopicInfo(
                "lonely",
                LONELY,
                Map.of("min.insync.replicas", "2"),
                List.of(new PartitionInfo(0, List.of(0), 0, 0, List.of(0), 0)));
        return List.of(
                topic("orders", ORDERS, 2, List.of(ME), ORDERS_EPOCH, Map.of()),
                topic("remote", REMOTE, 1, List.of(1, ME), 2, Map.of()),
                topic("replicated", REPLICATED, 1, List.of(ME, 1), 1, Map.of()),
                strict,
                lonely);
    }

    List<RequestHandler> handlers() {
        return List.of(produce, fetch, listOffsets, offsetForLeaderEpoch, deleteRecords);
    }

    Partition partition(String topic, int index) {
        return replicas.partition(topic, index).orElseThrow();
    }

    /** Calls {@code handler} with {@code request} as the listener would. */
    <T extends AbstractResponse> T call(RequestHandler handler, AbstractRequest request, Class<T> type) {
        return call(handler, request, type, KafkaPrincipal.ANONYMOUS);
    }

    /** As {@link #call}, on a connection authenticated as {@code principal}. */
    <T extends AbstractResponse> T call(
            RequestHandler handler, AbstractRequest request, Class<T> type, KafkaPrincipal principal) {
        var header = new RequestHeader(request.apiKey(), request.version(), "test", ++correlationId);
        var connection = new ConnectionInfo("test-1", new InetSocketAddress("127.0.0.1", 40000), "test", principal);
        return type.cast(handler.handle(new KafkaRequest(header, request, connection)));
    }

    /** Produces {@code request} through the produce handler; the answer for its first partition. */
    ProduceResponseData.PartitionProduceResponse produceOne(ProduceRequest request) {
        ProduceResponse response = call(produce, request, ProduceResponse.class);
        return response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .getFirst();
    }

    static MemoryRecords records(int count) {
        return MemoryRecords.withRecords(Compression.NONE, simple(0, count));
    }

    static MemoryRecords idempotent(long producerId, int epoch, int baseSequence, int count) {
        return MemoryRecords.withIdempotentRecords(
                Compression.NONE, producerId, (short) epoch, baseSequence, simple(baseSequence, count));
    }

    static SimpleRecord[] simple(int from, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(
                    1000L + from + i,
                    ("k" + (from + i)).getBytes(StandardCharsets.US_ASCII),
                    ("v" + (from + i)).getBytes(StandardCharsets.US_ASCII));
        }
        return records;
    }

    /** A produce request for one partition, by name (or by id from v13). */
    static ProduceRequest produceRequest(
            int version, short acks, int timeoutMs, String topic, Uuid topicId, int partition, MemoryRecords records) {
        var topicData = new ProduceRequestData.TopicProduceData().setName(version >= 13 ? "" : topic);
        if (version >= 13) {
            topicData.setTopicId(topicId);
        }
        topicData
                .partitionData()
                .add(new ProduceRequestData.PartitionProduceData()
                        .setIndex(partition)
                        .setRecords(records));
        var topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(topicData);
        var data =
                new ProduceRequestData().setAcks(acks).setTimeoutMs(timeoutMs).setTopicData(topics);
        return new ProduceRequest(data, (short) version);
    }

    /** One partition to fetch. */
    record Fetch(String topic, Uuid topicId, int partition, long offset, int maxBytes, int currentLeaderEpoch) {
        Fetch(String topic, Uuid topicId, int partition, long offset) {
            this(topic, topicId, partition, offset, 1024 * 1024, -1);
        }
    }

    /** A consumer's (replica id -1) or follower's sessionless fetch. */
    static FetchRequest fetchRequest(
            int version, int replicaId, int maxWaitMs, int minBytes, int maxBytes, Fetch... partitions) {
        var data = new FetchRequestData()
                .setMaxWaitMs(maxWaitMs)
                .setMinBytes(minBytes)
                .setMaxBytes(maxBytes)
                .setSessionId(0)
                .setSessionEpoch(-1);
        if (version >= 15) {
            data.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(replicaId));
            data.setReplicaId(-1);
        } else {
            data.setReplicaId(replicaId);
        }
        for (Fetch fetch : partitions) {
            var topic = new FetchRequestData.FetchTopic().setTopic(version >= 13 ? "" : fetch.topic());
            if (version >= 13) {
                topic.setTopicId(fetch.topicId());
            }
            topic.partitions()
                    .add(new FetchRequestData.FetchPartition()
                            .setPartition(fetch.partition())
                            .setFetchOffset(fetch.offset())
                            .setPartitionMaxBytes(fetch.maxBytes())
                            .setCurrentLeaderEpoch(fetch.currentLeaderEpoch()));
            data.topics().add(topic);
        }
        return new FetchRequest(data, (short) version);
    }

    @Override
    public void close() {
        replicas.close();
        store.close();
    }
}
