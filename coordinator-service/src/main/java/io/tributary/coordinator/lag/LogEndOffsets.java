package io.tributary.coordinator.lag;

import io.tributary.coordinator.metadata.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Where log end offsets come from (the brokers, through kafka-clients' Admin in production). */
public interface LogEndOffsets extends AutoCloseable {

    /**
     * The latest offset (the log end offset a consumer can reach: the high watermark) of each
     * partition, asking the brokers at {@code bootstrapServers}; partitions it could not learn are
     * absent from the answer.
     *
     * @throws Exception when no offset could be learned at all (no broker reachable)
     */
    Map<TopicPartition, Long> latest(List<String> bootstrapServers, Set<TopicPartition> partitions) throws Exception;

    @Override
    default void close() {}
}
