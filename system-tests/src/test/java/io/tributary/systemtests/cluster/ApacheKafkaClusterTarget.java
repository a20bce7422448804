package io.tributary.systemtests.cluster;

import io.tributary.common.testing.KafkaCluster;
import io.tributary.systemtests.kafka.KafkaTargets;
import io.tributary.systemtests.kafka.LazyGateway;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;

/**
 * The multi-broker reference: a real Apache Kafka cluster of three brokers and a dedicated KRaft
 * controller ({@link KafkaCluster}, child JVMs on {@code kafka-peer/target/kafka-libs}). Its group
 * settings are those of the single-broker reference ({@link KafkaTargets#KAFKA_GROUP_SETTINGS}):
 * KIP-848 groups heartbeat every second and expire after 10 s.
 */
final class ApacheKafkaClusterTarget implements ClusterTarget {

    private final KafkaCluster cluster;
    private final LazyGateway gateway;

    private ApacheKafkaClusterTarget(KafkaCluster cluster) {
        this.cluster = cluster;
        this.gateway = new LazyGateway(cluster::bootstrapServers, "multi-broker-kafka-gateway.log");
    }

    static ApacheKafkaClusterTarget start() throws IOException, InterruptedException {
        return new ApacheKafkaClusterTarget(KafkaCluster.start(KafkaTargets.KAFKA_GROUP_SETTINGS));
    }

    @Override
    public KafkaTargets.Kind kind() {
        return KafkaTargets.Kind.KAFKA;
    }

    @Override
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public Map<Integer, Integer> brokerPorts() {
        Set<Integer> running = cluster.runningBrokers();
        return cluster.brokerPorts().entrySet().stream()
                .filter(e -> running.contains(e.getKey()))
                .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    @Override
    public Set<Integer> stoppedBrokers() {
        Set<Integer> stopped = new TreeSet<>(cluster.brokerPorts().keySet());
        stopped.removeAll(cluster.runningBrokers());
        return stopped;
    }

    @Override
    public Set<Integer> brokerIds() {
        return cluster.brokerPorts().keySet();
    }

    @Override
    public String processAt(int port) {
        return cluster.brokerPorts().entrySet().stream()
                .filter(e -> e.getValue() == port)
                .map(e -> ClusterTarget.broker(e.getKey()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no broker of " + this + " listens on port " + port));
    }

    @Override
    public String groupCoordinator(Admin admin, String group) throws Exception {
        Node coordinator = admin.describeConsumerGroups(List.of(group))
                .describedGroups()
                .get(group)
                .get(30, TimeUnit.SECONDS)
                .coordinator();
        return processAt(coordinator.port());
    }

    @Override
    public void kill(String process) {
        cluster.kill(brokerId(process));
    }

    @Override
    public void start(String process) {
        try {
            cluster.start(brokerId(process));
        } catch (IOException e) {
            throw new IllegalStateException("could not start " + process + " again: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting " + process, e);
        }
    }

    @Override
    public Set<String> stoppedProcesses() {
        return stoppedBrokers().stream().map(ClusterTarget::broker).collect(Collectors.toSet());
    }

    private static int brokerId(String process) {
        if (!process.startsWith("broker-")) {
            throw new IllegalArgumentException("the Apache Kafka cluster has brokers only, not " + process);
        }
        return Integer.parseInt(process.substring("broker-".length()));
    }

    /** The gateway in front of this cluster, started on first use (only the gateway tests need it). */
    @Override
    public String gatewayUrl() {
        return gateway.url();
    }

    @Override
    public synchronized String logsHint() {
        return cluster.logsHint() + gateway.logsHint();
    }

    @Override
    public synchronized void close() {
        try {
            gateway.close();
        } finally {
            cluster.close();
        }
    }

    @Override
    public String toString() {
        return "Apache Kafka (3 brokers) at " + bootstrapServers();
    }
}
