package io.tributary.gateway.testing;

import io.tributary.common.testing.KafkaBroker;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one Kafka broker of a test run: started by the first test class that needs it, kept in JUnit's
 * root store, and closed (stopped by PID) when the run ends, whatever the tests' outcome. Test classes
 * use it through {@link GatewayIntegrationTest}.
 */
public final class SharedKafka implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedKafka.class);
    private static volatile KafkaBroker broker;

    /**
     * KIP-848 group timing small enough for tests: members heartbeat every 500 ms (partitions move
     * within a few heartbeats), and groups may set session timeouts down to 2 s (the gateway's
     * {@code tributary.gateway.groups.session-timeout}). The defaults stay Kafka's otherwise.
     */
    private static final java.util.Map<String, String> GROUP_SETTINGS = java.util.Map.of(
            "group.consumer.min.heartbeat.interval.ms", "100",
            "group.consumer.heartbeat.interval.ms", "500",
            "group.consumer.min.session.timeout.ms", "2000",
            "group.consumer.session.timeout.ms", "10000");

    @Override
    public void beforeAll(ExtensionContext context) {
        broker(context);
    }

    /** The running broker, started on first use. */
    public static KafkaBroker broker(ExtensionContext context) {
        return context.getRoot()
                .getStore(NAMESPACE)
                .computeIfAbsent(KafkaBroker.class, k -> startedBroker(), KafkaBroker.class);
    }

    /** The broker started by {@link #beforeAll}; for {@code @DynamicPropertySource}, which runs after it. */
    public static String bootstrapServers() {
        KafkaBroker b = broker;
        if (b == null) {
            throw new IllegalStateException("SharedKafka has not started the broker: extend GatewayIntegrationTest");
        }
        return b.bootstrapServers();
    }

    private static KafkaBroker startedBroker() {
        try {
            broker = KafkaBroker.start(GROUP_SETTINGS);
            return broker;
        } catch (Exception e) {
            throw new IllegalStateException("Could not start the test Kafka broker: " + e.getMessage(), e);
        }
    }
}
