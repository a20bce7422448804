package io.tributary.coordinator.group;

import io.tributary.coordinator.metadata.TopicPartition;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An {@link OffsetStore} in memory for tests; {@link #failNext} makes the next change fail with a
 * given reason.
 */
public final class InMemoryOffsetStore implements OffsetStore {

    private final Map<String, Map<TopicPartition, CommittedOffset>> groups = new TreeMap<>();
    private final InjectedFailure failure = new InjectedFailure();

    public void failNext(OffsetStoreException.Reason reason) {
        failure.failNext(reason);
    }

    @Override
    public synchronized void commit(String groupId, Map<TopicPartition, CommittedOffset> offsets)
            throws OffsetStoreException {
        failure.maybeFail();
        groups.computeIfAbsent(groupId, g -> new HashMap<>()).putAll(offsets);
    }

    @Override
    public synchronized Map<TopicPartition, CommittedOffset> fetch(String groupId) {
        return Map.copyOf(groups.getOrDefault(groupId, Map.of()));
    }

    @Override
    public synchronized Set<String> groups() {
        return Set.copyOf(groups.keySet());
    }

    @Override
    public synchronized void deleteGroup(String groupId) throws OffsetStoreException {
        failure.maybeFail();
        groups.remove(groupId);
    }

    @Override
    public synchronized void deleteOffsets(String groupId, Collection<TopicPartition> partitions)
            throws OffsetStoreException {
        failure.maybeFail();
        Map<TopicPartition, CommittedOffset> offsets = groups.get(groupId);
        if (offsets != null) {
            partitions.forEach(offsets::remove);
            if (offsets.isEmpty()) {
                groups.remove(groupId);
            }
        }
    }
}
