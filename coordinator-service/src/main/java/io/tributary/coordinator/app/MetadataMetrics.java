package io.tributary.coordinator.app;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import java.util.Locale;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;

/**
 * Gauges of this coordinator's view of the metadata, read from its latest applied image:
 *
 * <ul>
 *   <li>{@code tributary.metadata.version}: the metadata version;
 *   <li>{@code tributary.metadata.brokers{state=live|fenced}}: registered brokers by state;
 *   <li>{@code tributary.metadata.topics}, {@code tributary.metadata.partitions};
 *   <li>{@code tributary.metadata.partitions.offline}: partitions without a leader;
 *   <li>{@code tributary.metadata.producer.ids.allocated}: producer ids handed to brokers so far (the
 *       image's next producer id: ids start at 0 and are never handed out twice);
 *   <li>{@code tributary.metadata.raft.role{role=leader|follower|candidate|listener}}: 1 for this
 *       voter's current role, 0 for the others;
 *   <li>{@code tributary.metadata.raft.commit.index}: this voter's Raft commit index.
 * </ul>
 */
class MetadataMetrics implements MeterBinder {

    private final MetadataRaftNode node;

    MetadataMetrics(MetadataRaftNode node) {
        this.node = node;
    }

    private MetadataImage image() {
        return node.stateMachine().image();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("tributary.metadata.version", this, m -> m.image().version())
                .description("The metadata version of this coordinator's latest applied image")
                .register(registry);
        Gauge.builder(
                        "tributary.metadata.brokers",
                        this,
                        m -> m.image().liveBrokers().size())
                .tag("state", "live")
                .description("Registered brokers, by state")
                .register(registry);
        Gauge.builder(
                        "tributary.metadata.brokers",
                        this,
                        m -> m.image().brokers().size()
                                - m.image().liveBrokers().size())
                .tag("state", "fenced")
                .description("Registered brokers, by state")
                .register(registry);
        Gauge.builder("tributary.metadata.topics", this, m -> m.image().topics().size())
                .description("Topics")
                .register(registry);
        Gauge.builder(
                        "tributary.metadata.partitions",
                        this,
                        m -> m.image().topics().values().stream()
                                .mapToInt(t -> t.partitions().size())
                                .sum())
                .description("Partitions of all topics")
                .register(registry);
        Gauge.builder(
                        "tributary.metadata.partitions.offline",
                        this,
                        m -> m.image().offlinePartitionCount())
                .description("Partitions without a leader (no live ISR member, unclean election off)")
                .register(registry);
        Gauge.builder(
                        "tributary.metadata.producer.ids.allocated",
                        this,
                        m -> m.image().nextProducerId())
                .description("Producer ids handed to brokers so far (the next block starts at this id)")
                .register(registry);
        for (RaftPeerRole role : new RaftPeerRole[] {
            RaftPeerRole.LEADER, RaftPeerRole.FOLLOWER, RaftPeerRole.CANDIDATE, RaftPeerRole.LISTENER
        }) {
            Gauge.builder(
                            "tributary.metadata.raft.role",
                            this,
                            m -> m.node.role().filter(role::equals).isPresent() ? 1 : 0)
                    .tag("role", role.name().toLowerCase(Locale.ROOT))
                    .description("1 for this voter's current Raft role, 0 for the others")
                    .register(registry);
        }
        Gauge.builder("tributary.metadata.raft.commit.index", this, m -> m.node.commitIndex())
                .description("This voter's Raft commit index")
                .register(registry);
    }
}
