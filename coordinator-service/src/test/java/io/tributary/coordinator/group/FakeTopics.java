package io.tributary.coordinator.group;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/** A mutable {@link TopicView} for tests: topics are created, deleted and grown by hand. */
public final class FakeTopics implements TopicView {

    private final Map<String, TopicInfo> topics = new TreeMap<>();
    private long nextId = 1;

    /** Creates a topic with a deterministic id and returns it. */
    public synchronized TopicInfo create(String name, int partitions) {
        TopicInfo info = new TopicInfo(name, new UUID(0x7472L, nextId++), partitions);
        topics.put(name, info);
        return info;
    }

    public synchronized void delete(String name) {
        topics.remove(name);
    }

    public synchronized void grow(String name, int partitions) {
        TopicInfo old = topics.get(name);
        topics.put(name, new TopicInfo(name, old.id(), partitions));
    }

    public synchronized TopicInfo get(String name) {
        return topics.get(name);
    }

    @Override
    public synchronized Optional<TopicInfo> byName(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    @Override
    public synchronized Optional<TopicInfo> byId(UUID id) {
        return topics.values().stream().filter(t -> t.id().equals(id)).findFirst();
    }

    @Override
    public synchronized Collection<TopicInfo> all() {
        return List.copyOf(topics.values());
    }
}
