package io.tributary.coordinator.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tributary.coordinator.liveness.BrokerLiveness;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.metadata.raft.RaftNodeConfig;
import io.tributary.coordinator.metadata.raft.RaftTransport;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the metadata core: this coordinator's Raft voter (from {@link CoordinatorProperties}), a
 * client of the group, the liveness loop and the metrics. The beans are plain core objects; this
 * class only turns properties into core config records.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({MetadataProperties.class, RaftTlsProperties.class})
class MetadataConfiguration {

    private static final Logger log = LoggerFactory.getLogger(MetadataConfiguration.class);

    /** Parses {@code host:port}. */
    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw new IllegalArgumentException("a Raft peer must be host:port, got '" + hostPort + "'");
        }
        return InetSocketAddress.createUnresolved(
                hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    static RaftNodeConfig raftNodeConfig(CoordinatorProperties coordinator, MetadataProperties metadata) {
        List<InetSocketAddress> peers =
                coordinator.peers().stream().map(MetadataConfiguration::address).toList();
        int advertisedPort = peers.get(coordinator.id()).getPort();
        if (coordinator.raftPort() != advertisedPort) {
            log.warn(
                    "tributary.coordinator.raft-port={} differs from this voter's port {} in"
                            + " tributary.coordinator.peers; fine behind address translation, otherwise the"
                            + " other voters and this process's own client cannot reach it",
                    coordinator.raftPort(),
                    advertisedPort);
        }
        return new RaftNodeConfig(
                coordinator.id(),
                peers,
                InetSocketAddress.createUnresolved(coordinator.raftHost(), coordinator.raftPort()),
                coordinator.dataDir(),
                metadata.snapshotThresholdEntries(),
                metadata.logSegmentSize().toBytes(),
                metadata.electionTimeoutMin(),
                metadata.limits(),
                metadata.logFlush());
    }

    /**
     * This coordinator's voter, on the transport {@code tributary.coordinator.raft.ssl.*} chooses
     * (mutual TLS with a key store, plaintext without), which its own Raft client uses too.
     */
    @Bean
    MetadataRaftNode metadataRaftNode(
            CoordinatorProperties coordinator, MetadataProperties metadata, RaftTlsProperties raftTls) {
        RaftTransport transport = raftTls.transport();
        log.info("Raft port {}:{}: {}", coordinator.raftHost(), coordinator.raftPort(), transport.describe());
        return new MetadataRaftNode(raftNodeConfig(coordinator, metadata), transport);
    }

    @Bean
    RaftLifecycle raftLifecycle(MetadataRaftNode node) {
        return new RaftLifecycle(node);
    }

    /**
     * The coordinator's client of its own Raft group. Every write it makes (topic and broker
     * changes, group state, committed offsets) is timed into {@code tributary.metadata.raft.write}
     * ({@code tributary_metadata_raft_write_seconds} in Prometheus, a histogram, tagged {@code
     * outcome=committed|rejected|failed}): from sending to the leader's reply once the entry is
     * committed and applied, retries included. While this voter leads, writes go to its own Raft
     * division in-process (no transport hop); otherwise to the leader over the Raft transport (Netty, or gRPC with mutual TLS). A SyncGroup, an offset commit and a KIP-848
     * heartbeat that changes the group each wait for one such write.
     */
    @Bean(destroyMethod = "close")
    MetadataClient metadataClient(MetadataRaftNode node, MeterRegistry registry) {
        Map<MetadataClient.WriteOutcome, Timer> timers = new EnumMap<>(MetadataClient.WriteOutcome.class);
        for (MetadataClient.WriteOutcome outcome : MetadataClient.WriteOutcome.values()) {
            timers.put(
                    outcome,
                    Timer.builder("tributary.metadata.raft.write")
                            .description("Raft writes of this coordinator: from sending to the leader's reply")
                            .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                            .publishPercentileHistogram()
                            .register(registry));
        }
        return new MetadataClient(node, (nanos, outcome) -> timers.get(outcome).record(nanos, TimeUnit.NANOSECONDS));
    }

    @Bean
    LivenessLoop livenessLoop(MetadataRaftNode node, MetadataClient client, MetadataProperties metadata) {
        return new LivenessLoop(
                new BrokerLiveness(metadata.livenessConfig(), InstantSource.system()),
                node,
                client,
                metadata.heartbeatInterval());
    }

    /**
     * {@code metadataRaft}: UP while this voter knows a leader (writes can be committed), with its
     * role, the leader, term, commit index and metadata version; UNKNOWN while it does not (an
     * election takes a moment and must not turn the whole process's health red). Not in the
     * readiness group: voters must reach each other to elect a leader at all.
     */
    @Bean
    HealthIndicator metadataRaftHealthIndicator(MetadataRaftNode node) {
        return () -> {
            Health.Builder health = node.leaderId().isPresent() ? Health.up() : Health.unknown();
            node.role().ifPresent(role -> health.withDetail("role", role.name()));
            node.leaderId().ifPresent(leader -> health.withDetail("leader", leader));
            return health.withDetail("term", node.currentTerm())
                    .withDetail("commitIndex", node.commitIndex())
                    .withDetail("metadataVersion", node.stateMachine().image().version())
                    .build();
        };
    }

    @Bean
    MetadataMetrics metadataMetrics(MetadataRaftNode node) {
        return new MetadataMetrics(node);
    }
}
