package io.tributary.coordinator.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.tributary.coordinator.lag.ConsumerLagMonitor.Series;
import io.tributary.coordinator.metadata.CommittedOffset;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteGroupOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.FenceBroker;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Lag per (group, topic) from committed offsets and log end offsets, on the leader only. */
class ConsumerLagMonitorTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    /** Log end offsets from a map; records what it was asked; can fail. */
    private static final class FakeLogEndOffsets implements LogEndOffsets {
        final Map<TopicPartition, Long> ends = new HashMap<>();
        final List<List<String>> bootstraps = new ArrayList<>();
        final List<Set<TopicPartition>> asked = new ArrayList<>();
        boolean failing;

        @Override
        public Map<TopicPartition, Long> latest(List<String> bootstrapServers, Set<TopicPartition> partitions)
                throws Exception {
            bootstraps.add(bootstrapServers);
            asked.add(Set.copyOf(partitions));
            if (failing) {
                throw new java.io.IOException("no broker answers");
            }
            Map<TopicPartition, Long> answer = new HashMap<>(ends);
            answer.keySet().retainAll(partitions);
            return answer;
        }
    }

    private final FakeLogEndOffsets ends = new FakeLogEndOffsets();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final AtomicReference<MetadataImage> image = new AtomicReference<>(Fixtures.liveBrokers(2, 1)
            .apply(Fixtures.createTopic("a", List.of(List.of(0), List.of(1))))
            .apply(Fixtures.createTopic("b", List.of(List.of(1)))));

    private ConsumerLagMonitor monitor(int maxSeries) {
        return new ConsumerLagMonitor(image::get, leader::get, ends, maxSeries);
    }

    private void commit(String group, Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, CommittedOffset> committed = new HashMap<>();
        offsets.forEach((tp, o) -> committed.put(tp, new CommittedOffset(o, 0, "", 0)));
        image.set(image.get().apply(new CommitOffsets(group, committed)));
    }

    @Test
    void lagIsTheSumOverTheTopicsCommittedPartitionsFlooredAtZero() {
        commit("g", Map.of(A0, 10L, A1, 50L, B0, 7L));
        commit("h", Map.of(A0, 100L));
        ends.ends.putAll(Map.of(A0, 25L, A1, 40L, B0, 7L));

        assertThat(monitor(100).refresh())
                .containsExactly(
                        entry(new Series("g", "a"), 15L), // 15 + max(0, -10)
                        entry(new Series("g", "b"), 0L),
                        entry(new Series("h", "a"), 0L)); // a committed offset past the end (a truncated log)
        assertThat(ends.asked.getFirst()).containsExactlyInAnyOrder(A0, A1, B0);
        assertThat(ends.bootstraps.getFirst()).containsExactly("127.0.0.1:9092", "127.0.0.1:9093");
    }

    @Test
    void eachPartitionsLagIsReportedForTheSameSeries() {
        commit("g", Map.of(A0, 10L, A1, 50L, B0, 7L));
        ConsumerLagMonitor monitor = monitor(1);
        ends.ends.putAll(Map.of(A0, 25L, A1, 40L, B0, 7L));

        monitor.refresh();

        assertThat(monitor.partitionLag()).containsOnlyKeys(new Series("g", "a"));
        assertThat(monitor.partitionLag().get(new Series("g", "a"))).containsExactly(entry(0, 15L), entry(1, 0L));
        leader.set(false);
        monitor.refresh();
        assertThat(monitor.partitionLag()).isEmpty();
    }

    @Test
    void onlyLiveBrokersAreAskedAndPartitionsWithoutAKnownEndAddNothing() {
        commit("g", Map.of(A0, 1L, A1, 1L, B0, 1L));
        image.set(image.get().apply(new FenceBroker(1, Fixtures.incarnation(1, 0))));
        ends.ends.put(A0, 5L);

        assertThat(monitor(100).refresh()).containsExactly(entry(new Series("g", "a"), 4L));
        assertThat(ends.bootstraps.getFirst()).containsExactly("127.0.0.1:9092");
    }

    @Test
    void aDeletedGroupLosesItsSeriesAndAFollowerReportsNothing() {
        commit("g", Map.of(A0, 1L));
        commit("h", Map.of(B0, 1L));
        ends.ends.putAll(Map.of(A0, 3L, B0, 3L));
        ConsumerLagMonitor monitor = monitor(100);
        assertThat(monitor.refresh()).hasSize(2);

        image.set(image.get().apply(new DeleteGroupOffsets("g")));
        assertThat(monitor.refresh()).containsOnlyKeys(new Series("h", "b"));

        leader.set(false);
        assertThat(monitor.refresh()).isEmpty();
        assertThat(monitor.lag()).isEmpty();
    }

    @Test
    void atMostMaxSeriesAreReportedInGroupAndTopicOrder() {
        commit("g", Map.of(A0, 1L, B0, 1L));
        commit("f", Map.of(B0, 1L));
        ends.ends.putAll(Map.of(A0, 2L, B0, 2L));

        assertThat(monitor(2).refresh()).containsOnlyKeys(new Series("f", "b"), new Series("g", "a"));
        assertThat(monitor(0).refresh()).isEmpty();
    }

    @Test
    void whenNoEndIsLearnedThePreviousLagIsKeptForGroupsThatStillHaveOffsets() {
        commit("g", Map.of(A0, 1L));
        commit("h", Map.of(B0, 1L));
        ends.ends.putAll(Map.of(A0, 4L, B0, 6L));
        ConsumerLagMonitor monitor = monitor(100);
        monitor.refresh();

        ends.failing = true;
        image.set(image.get().apply(new DeleteGroupOffsets("h")));
        assertThat(monitor.refresh()).containsExactly(entry(new Series("g", "a"), 3L));
    }
}
