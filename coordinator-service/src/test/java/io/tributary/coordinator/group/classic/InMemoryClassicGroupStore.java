package io.tributary.coordinator.group.classic;

import io.tributary.coordinator.group.InjectedFailure;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link ClassicGroupStore} in memory for tests; {@link #failNext} makes the next change fail
 * with a given reason.
 */
public final class InMemoryClassicGroupStore implements ClassicGroupStore {

    private final Map<String, ClassicGroupRecord> groups = new TreeMap<>();
    private final InjectedFailure failure = new InjectedFailure();
    private int writes;

    public void failNext(OffsetStoreException.Reason reason) {
        failure.failNext(reason);
    }

    @Override
    public synchronized void store(ClassicGroupRecord group) throws OffsetStoreException {
        failure.maybeFail();
        groups.put(group.groupId(), group);
        writes++;
    }

    @Override
    public synchronized void delete(String groupId) throws OffsetStoreException {
        failure.maybeFail();
        groups.remove(groupId);
        writes++;
    }

    @Override
    public synchronized Map<String, ClassicGroupRecord> load() {
        return Map.copyOf(groups);
    }

    /** How many changes were made. */
    public synchronized int writes() {
        return writes;
    }
}
