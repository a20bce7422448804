package io.tributary.coordinator.kafka;

import io.tributary.coordinator.group.ConsumerMigrationPolicy;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.InMemoryConsumerGroupStore;
import io.tributary.coordinator.group.OffsetStore;
import io.tributary.coordinator.group.TopicView;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.ClassicGroupStore;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
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
        return create(GroupConfig.DEFAULTS, topics, offsets, classicStore, classicConfig, leader, term, (InstantSource)
                () -> Instant.ofEpochMilli(nowMs.getAsLong()));
    }

    /**
     * A service with {@code config}'s consumer groups over {@code offsets}, always leading, in term 1,
     * on {@code clock} (real clients).
     */
    public static GroupService create(
            GroupConfig config,
            TopicView topics,
            OffsetStore offsets,
            ClassicGroupConfig classicConfig,
            InstantSource clock) {
        return create(
                config, topics, offsets, new InMemoryClassicGroupStore(), classicConfig, () -> true, () -> 1, clock);
    }

    private static GroupService create(
            GroupConfig config,
            TopicView topics,
            OffsetStore offsets,
            ClassicGroupStore classicStore,
            ClassicGroupConfig classicConfig,
            BooleanSupplier leader,
            LongSupplier term,
            InstantSource clock) {
        return new GroupService(
                new GroupCoordinator(config, topics),
                new ClassicGroupCoordinator(classicConfig, UUID::randomUUID),
                new StreamsGroupCoordinator(config, StreamsGroupConfig.DEFAULTS, topics),
                offsets,
                classicStore,
                new InMemoryConsumerGroupStore(),
                internalTopics -> {},
                topics,
                leader,
                term,
                clock,
                ConsumerMigrationPolicy.BIDIRECTIONAL);
    }
}
