package io.tributary.coordinator.kafka;

import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.InMemoryConsumerGroupStore;
import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.group.TopicView;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.ClassicGroupStore;
import io.tributary.coordinator.group.streams.StreamsGroupConfig;
import io.tributary.coordinator.group.streams.StreamsGroupCoordinator;
import java.time.Instant;
import java.time.InstantSource;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/** {@link GroupService}s for tests: default group settings, the stores and clock the test gives. */
public final class InMemoryGroupServices {

    private InMemoryGroupServices() {}

    /**
     * A service over {@code offsets} and {@code classicStore} (the tests' in-memory stores), leading
     * while {@code leader} says so, in {@code term}, at the time {@code nowMs} gives.
     */
    public static GroupService create(
            TopicView topics,
            OffsetStore offsets,
            ClassicGroupStore classicStore,
            ClassicGroupConfig classicConfig,
            BooleanSupplier leader,
            LongSupplier term,
            LongSupplier nowMs) {
        return new GroupService(
                new GroupCoordinator(GroupConfig.DEFAULTS, topics),
                new ClassicGroupCoordinator(classicConfig, UUID::randomUUID),
                new StreamsGroupCoordinator(GroupConfig.DEFAULTS, StreamsGroupConfig.DEFAULTS, topics),
                offsets,
                classicStore,
                new InMemoryConsumerGroupStore(),
                internalTopics -> {},
                topics,
                leader,
                term,
                (InstantSource) () -> Instant.ofEpochMilli(nowMs.getAsLong()));
    }
}
