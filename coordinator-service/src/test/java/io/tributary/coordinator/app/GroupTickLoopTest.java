package io.tributary.coordinator.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.OffsetRetention;
import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
import io.tributary.coordinator.kafka.GroupService;
import io.tributary.coordinator.kafka.InMemoryGroupServices;
import io.tributary.coordinator.metadata.TopicPartition;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The group timer thread runs the offsets retention check on its own cadence and counts what it deleted. */
class GroupTickLoopTest {

    @Test
    void theRetentionCheckRunsOnItsCadenceAndCountsTheExpiredOffsets() throws Exception {
        FakeTopics topics = new FakeTopics();
        topics.create("t", 2);
        InMemoryOffsetStore store = new InMemoryOffsetStore();
        AtomicLong nowMs = new AtomicLong(1_900_000_000_000L);
        GroupService service = InMemoryGroupServices.create(
                topics,
                store,
                new InMemoryClassicGroupStore(),
                ClassicGroupConfig.DEFAULTS,
                () -> true,
                () -> 1,
                nowMs::get);
        service.requireLeader();
        store.commit(
                "simple",
                Map.of(
                        new TopicPartition("t", 0), new CommittedOffset(1, -1, "", nowMs.get()),
                        new TopicPartition("t", 1), new CommittedOffset(2, -1, "", nowMs.get())));
        nowMs.addAndGet(Duration.ofDays(8).toMillis());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Counter expired = registry.counter("tributary.group.offsets.expired");
        GroupTickLoop loop = new GroupTickLoop(
                service, Duration.ofHours(1), new OffsetRetention(Duration.ofDays(7)), Duration.ofMillis(50), expired);

        loop.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> expired.count() == 2.0);
            assertThat(store.groups()).isEmpty();
        } finally {
            loop.stop();
        }
    }
}
