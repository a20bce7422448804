package io.tributary.systemtests.kafka;

import io.tributary.common.testing.KafkaTestConnection;
import java.io.IOException;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * One raw Kafka connection to one broker, for requests no client would send (to a non-leader, for
 * an unknown topic): what the broker answers, not what a client makes of it. Versions are the
 * newest both kafka-clients and the broker (its ApiVersions answer) speak.
 */
public final class RawKafka implements AutoCloseable {

    private final KafkaTestConnection connection;
    private final ApiVersionsResponse versions;

    private RawKafka(KafkaTestConnection connection, ApiVersionsResponse versions) {
        this.connection = connection;
        this.versions = versions;
    }

    public static RawKafka open(int port) throws IOException {
        KafkaTestConnection connection = KafkaTestConnection.open(port);
        try {
            ApiVersionsResponse versions = connection.apiVersions();
            if (versions.data().errorCode() != Errors.NONE.code()) {
                throw new IllegalStateException(
                        "ApiVersions answered " + Errors.forCode(versions.data().errorCode()));
            }
            return new RawKafka(connection, versions);
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    public KafkaTestConnection connection() {
        return connection;
    }

    /** The broker's ApiVersions entry for {@code api} ("min..max"), or "absent". */
    public String offered(ApiKeys api) {
        ApiVersion offered = versions.data().apiKeys().find(api.id);
        return offered == null ? "absent" : offered.minVersion() + ".." + offered.maxVersion();
    }

    /** The newest version of {@code api} that both sides speak; fails if the broker does not offer it. */
    public short version(ApiKeys api) {
        ApiVersion offered = versions.data().apiKeys().find(api.id);
        if (offered == null) {
            throw new AssertionError("the broker does not advertise " + api + " in ApiVersions");
        }
        short version = (short) Math.min(offered.maxVersion(), api.latestVersion());
        if (version < Math.max(offered.minVersion(), api.oldestVersion())) {
            throw new AssertionError("no common version of " + api + ": broker " + offered.minVersion() + ".."
                    + offered.maxVersion() + ", client " + api.oldestVersion() + ".." + api.latestVersion());
        }
        return version;
    }

    /**
     * Sends {@code records} to {@code partition} of the topic (by name or, from Produce v13, by id)
     * with {@code acks} (-1 for all, 1 for the leader) and a 10 s timeout, and returns the
     * partition's answer.
     */
    public ProduceResponseData.PartitionProduceResponse produce(
            String topic, Uuid topicId, int partition, short acks, MemoryRecords records) throws IOException {
        short version = version(ApiKeys.PRODUCE);
        var topicData = new ProduceRequestData.TopicProduceData()
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(partition)
                        .setRecords(records)));
        if (version >= 13) {
            topicData.setTopicId(topicId);
        } else {
            topicData.setName(topic);
        }
        var data = new ProduceRequestData()
                .setAcks(acks)
                .setTimeoutMs(10_000)
                .setTopicData(new ProduceRequestData.TopicProduceDataCollection(
                        List.of(topicData).iterator()));
        ProduceResponse response = connection.roundTrip(
                new ProduceRequest.Builder(version, version, data).build(version), ProduceResponse.class);
        List<ProduceResponseData.PartitionProduceResponse> partitions = response.data().responses().stream()
                .flatMap(t -> t.partitionResponses().stream())
                .toList();
        if (partitions.size() != 1 || partitions.getFirst().index() != partition) {
            throw new AssertionError("expected the answer of partition " + partition + " only: " + response.data());
        }
        return partitions.getFirst();
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
