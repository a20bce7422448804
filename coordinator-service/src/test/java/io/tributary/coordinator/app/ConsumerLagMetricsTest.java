package io.tributary.coordinator.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.coordinator.lag.ConsumerLagMonitor;
import io.tributary.coordinator.lag.LogEndOffsets;
import io.tributary.coordinator.metadata.CommittedOffset;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteGroupOffsets;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The lag gauge: one series per (group, topic) on the leader, removed with the group's offsets. */
class ConsumerLagMetricsTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final AtomicReference<MetadataImage> image = new AtomicReference<>(Fixtures.liveBrokers(1, 1)
            .apply(Fixtures.createTopic("a", List.of(List.of(0))))
            .apply(new CommitOffsets("g", Map.of(A0, new CommittedOffset(10, 0, "", 0)))));
    private final LogEndOffsets ends = (bootstrap, partitions) -> Map.of(A0, 42L);
    private final ConsumerLagMetrics metrics = new ConsumerLagMetrics(
            new ConsumerLagMonitor(image::get, leader::get, ends, 100), registry, Duration.ofSeconds(10));

    private Double lag(String group, String topic) {
        var gauge = registry.find(ConsumerLagMetrics.NAME)
                .tags("group", group, "topic", topic)
                .gauge();
        return gauge == null ? null : gauge.value();
    }

    @Test
    void theLeaderShowsEachGroupsLagPerTopic() {
        metrics.refresh();
        assertThat(lag("g", "a")).isEqualTo(32.0);
    }

    @Test
    void theLeaderShowsEachGroupsLagPerPartition() {
        metrics.refresh();
        var gauge = registry.find(ConsumerLagMetrics.PARTITION_NAME)
                .tags("group", "g", "topic", "a", "partition", "0")
                .gauge();
        assertThat(gauge).isNotNull();
        assertThat(gauge.value()).isEqualTo(32.0);
        leader.set(false);
        metrics.refresh();
        assertThat(registry.find(ConsumerLagMetrics.PARTITION_NAME).gauges()).isEmpty();
    }

    @Test
    void aDeletedGroupsSeriesIsRemovedAtTheNextRefresh() {
        metrics.refresh();
        image.set(image.get().apply(new DeleteGroupOffsets("g")));
        metrics.refresh();
        assertThat(lag("g", "a")).isNull();
    }

    @Test
    void aFollowerHasNoSeries() {
        metrics.refresh();
        leader.set(false);
        metrics.refresh();
        assertThat(registry.find(ConsumerLagMetrics.NAME).gauges()).isEmpty();
    }
}
