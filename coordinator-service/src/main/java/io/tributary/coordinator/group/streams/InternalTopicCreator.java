package io.tributary.coordinator.group.streams;

import java.util.List;

/**
 * Creates the internal topics (repartition and changelog topics) streams groups need, as Kafka's
 * group coordinator has its broker create them: best effort, the next heartbeat or tick asks again
 * for what is still missing. Implementations are thread-safe and may block for a metadata write; they
 * are never called under a state machine's lock.
 */
public interface InternalTopicCreator {

    /** Creates those of {@code topics} that do not exist yet; failures are logged, not thrown. */
    void create(List<StreamsTopology.InternalTopic> topics);
}
