package io.tributary.coordinator.group;

import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link ConsumerGroupStore} in memory for tests, folding records as the metadata image does
 * ({@link StoredConsumerGroup#apply}); {@link #failNext} makes the next change fail with a given
 * reason.
 */
public final class InMemoryConsumerGroupStore implements ConsumerGroupStore {

    private final Map<String, StoredConsumerGroup> groups = new TreeMap<>();
    private final InjectedFailure failure = new InjectedFailure();
    private int writes;

    public void failNext(OffsetStoreException.Reason reason) {
        failure.failNext(reason);
    }

    @Override
    public synchronized void append(String groupId, List<ConsumerGroupRecord> records) throws OffsetStoreException {
        failure.maybeFail();
        groups.put(
                groupId,
                groups.getOrDefault(groupId, StoredConsumerGroup.empty(groupId)).apply(records));
        writes++;
    }

    @Override
    public synchronized void delete(String groupId) throws OffsetStoreException {
        failure.maybeFail();
        groups.remove(groupId);
        writes++;
    }

    @Override
    public synchronized Map<String, StoredConsumerGroup> load() {
        return Map.copyOf(groups);
    }

    /** How many changes were made. */
    public synchronized int writes() {
        return writes;
    }
}
