package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.TopicView.TopicInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * The data path real kafka-clients consumers need besides the group APIs, stubbed on the group
 * handlers' listener for tests: Metadata naming this node leader of every partition of the {@link
 * FakeTopics}, FindCoordinator pointing here, ListOffsets (earliest 0, latest the log's end) and
 * Fetch from an in-memory log ({@link #append}; empty unless a test appends, then a short long
 * poll).
 *
 * <p>Thread-safe.
 */
final class StubbedDataPath {

    private final FakeTopics topics;
    private final IntSupplier port;
    /** Record values by topic name and partition, by offset. */
    private final Map<String, Map<Integer, List<String>>> log = new ConcurrentHashMap<>();

    /** @param port the listener's port, once it is bound */
    StubbedDataPath(FakeTopics topics, IntSupplier port) {
        this.topics = topics;
        this.port = port;
    }

    private record Stub(ApiVersionRange versions, Function<KafkaRequest, AbstractResponse> answer)
            implements RequestHandler {
        @Override
        public AbstractResponse handle(KafkaRequest request) {
            return answer.apply(request);
        }
    }

    /** The four stubs, to add to the group handlers. */
    List<RequestHandler> handlers() {
        return List.of(
                new Stub(ApiVersionRange.of(ApiKeys.METADATA, 4, ApiKeys.METADATA.latestVersion()), this::metadata),
                new Stub(ApiVersionRange.of(ApiKeys.FIND_COORDINATOR, 4, 6), this::findCoordinator),
                new Stub(
                        ApiVersionRange.of(ApiKeys.LIST_OFFSETS, 1, ApiKeys.LIST_OFFSETS.latestVersion()),
                        this::listOffsets),
                new Stub(ApiVersionRange.of(ApiKeys.FETCH, 4, ApiKeys.FETCH.latestVersion()), this::fetch));
    }

    /** Appends a record to a partition; returns its offset. */
    long append(String topic, int partition, String value) {
        List<String> values = partition(topic, partition);
        values.add(value);
        return values.size() - 1;
    }

    /** How many records a partition has (its end offset). */
    int size(String topic, int partition) {
        return partition(topic, partition).size();
    }

    private List<String> partition(String topic, int partition) {
        return log.computeIfAbsent(topic, t -> new ConcurrentHashMap<>())
                .computeIfAbsent(partition, p -> new CopyOnWriteArrayList<>());
    }

    private AbstractResponse metadata(KafkaRequest request) {
        MetadataRequest metadata = request.body(MetadataRequest.class);
        var data = new MetadataResponseData().setClusterId("test-cluster").setControllerId(0);
        data.brokers()
                .add(new MetadataResponseData.MetadataResponseBroker()
                        .setNodeId(0)
                        .setHost("127.0.0.1")
                        .setPort(port.getAsInt()));
        List<TopicInfo> wanted = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        if (metadata.isAllTopics()) {
            wanted.addAll(topics.all());
        } else {
            // By name, or by id (a regex subscription learns its topics' ids from the assignment).
            for (var requested : metadata.data().topics()) {
                var found = requested.name() != null && !requested.name().isEmpty()
                        ? topics.byName(requested.name())
                        : topics.byId(GroupService.uuid(requested.topicId()));
                found.ifPresentOrElse(wanted::add, () -> unknown.add(String.valueOf(requested.name())));
            }
        }
        for (TopicInfo info : wanted) {
            var out = new MetadataResponseData.MetadataResponseTopic()
                    .setName(info.name())
                    .setTopicId(GroupService.kafkaUuid(info.id()));
            for (int p = 0; p < info.partitionCount(); p++) {
                out.partitions()
                        .add(new MetadataResponseData.MetadataResponsePartition()
                                .setPartitionIndex(p)
                                .setLeaderId(0)
                                .setLeaderEpoch(0)
                                .setReplicaNodes(List.of(0))
                                .setIsrNodes(List.of(0)));
            }
            data.topics().add(out);
        }
        for (String name : unknown) {
            data.topics()
                    .add(new MetadataResponseData.MetadataResponseTopic()
                            .setName(name)
                            .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
        }
        return new MetadataResponse(data, request.header().apiVersion());
    }

    private AbstractResponse findCoordinator(KafkaRequest request) {
        var data = new FindCoordinatorResponseData();
        for (String key : request.body(FindCoordinatorRequest.class).data().coordinatorKeys()) {
            data.coordinators()
                    .add(new FindCoordinatorResponseData.Coordinator()
                            .setKey(key)
                            .setNodeId(0)
                            .setHost("127.0.0.1")
                            .setPort(port.getAsInt()));
        }
        return new FindCoordinatorResponse(data);
    }

    private AbstractResponse listOffsets(KafkaRequest request) {
        var data = new ListOffsetsResponseData();
        for (var topic : request.body(ListOffsetsRequest.class).topics()) {
            var out = new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
            for (var p : topic.partitions()) {
                long offset = p.timestamp() == ListOffsetsRequest.LATEST_TIMESTAMP
                        ? size(topic.name(), p.partitionIndex())
                        : 0;
                out.partitions()
                        .add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                .setPartitionIndex(p.partitionIndex())
                                .setOffset(offset)
                                .setTimestamp(-1)
                                .setLeaderEpoch(0));
            }
            data.topics().add(out);
        }
        return new ListOffsetsResponse(data);
    }

    private AbstractResponse fetch(KafkaRequest request) {
        var fetch = request.body(FetchRequest.class).data();
        var data = new FetchResponseData();
        boolean any = false;
        for (var topic : fetch.topics()) {
            String name = topic.topic() != null && !topic.topic().isEmpty()
                    ? topic.topic()
                    : topics.byId(GroupService.uuid(topic.topicId()))
                            .map(TopicInfo::name)
                            .orElse("");
            var out = new FetchResponseData.FetchableTopicResponse()
                    .setTopic(topic.topic())
                    .setTopicId(topic.topicId());
            for (var p : topic.partitions()) {
                List<String> values = partition(name, p.partition());
                int end = values.size();
                int from = (int) Math.min(p.fetchOffset(), end);
                List<SimpleRecord> records = new ArrayList<>();
                for (String value : values.subList(from, end)) {
                    records.add(new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)));
                }
                any |= !records.isEmpty();
                out.partitions()
                        .add(new FetchResponseData.PartitionData()
                                .setPartitionIndex(p.partition())
                                .setHighWatermark(end)
                                .setLastStableOffset(end)
                                .setLogStartOffset(0)
                                .setRecords(
                                        records.isEmpty()
                                                ? MemoryRecords.EMPTY
                                                : MemoryRecords.withRecords(
                                                        from, Compression.NONE, records.toArray(SimpleRecord[]::new))));
            }
            data.responses().add(out);
        }
        if (!any) {
            try {
                Thread.sleep(Math.min(fetch.maxWaitMs(), 100)); // nothing to read: a short long poll
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return FetchResponse.of(data);
    }
}
