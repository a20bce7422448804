package io.tributary.systemtests.kafka;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Something that speaks Kafka at a bootstrap address: a real Apache Kafka broker or a Tributary
 * cluster. The Kafka-client scenarios only use what a client sees (the bootstrap address, the Kafka
 * listeners, the broker count), so the same test runs against both and the observable results can
 * be compared.
 */
public interface KafkaTarget extends AutoCloseable {

    /** Which kind of cluster this is. */
    KafkaTargets.Kind kind();

    /** {@code host:port,...} of every broker's Kafka listener (a stopped broker's too). */
    String bootstrapServers();

    /** The Kafka listener port of each live broker, by broker id. */
    Map<Integer, Integer> brokerPorts();

    /** Registered brokers that are down (killed by the target), by id; none on a healthy target. */
    default Set<Integer> stoppedBrokers() {
        return Set.of();
    }

    /**
     * The cluster's default replication factor ({@code default.replication.factor}), which {@link
     * Clients#createTopic} uses: 1 on the healthy targets, 3 on the degraded one.
     */
    default int defaultReplicationFactor() {
        return 1;
    }

    /** Brokers registered in the cluster, live or stopped: the most a replication factor can be. */
    default int registeredBrokerCount() {
        return brokerCount() + stoppedBrokers().size();
    }

    /** Where the processes' logs are, for the failure messages. */
    String logsHint();

    /**
     * The base URL ({@code http://127.0.0.1:<port>}) of a Tributary gateway in front of this
     * target: the cluster's own gateway for Tributary, a gateway process started on first use for
     * Kafka.
     */
    String gatewayUrl();

    /** How many brokers are live (in the cluster's metadata). */
    default int brokerCount() {
        return brokerPorts().size();
    }

    /** The Kafka listener ports, in broker id order. */
    default List<Integer> ports() {
        return brokerPorts().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(Map.Entry::getValue)
                .toList();
    }

    /** Client settings every client of this target starts from: the bootstrap servers, short retries. */
    default Properties clientProperties() {
        Properties properties = new Properties();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        properties.put(
                CommonClientConfigs.CLIENT_ID_CONFIG, "systest-" + kind().name().toLowerCase());
        return properties;
    }

    /** An admin client for this target; the caller closes it. */
    default Admin admin() {
        Properties properties = clientProperties();
        // A safety net that turns a hang into a failure; not an assertion on speed.
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(properties);
    }

    @Override
    void close();
}
