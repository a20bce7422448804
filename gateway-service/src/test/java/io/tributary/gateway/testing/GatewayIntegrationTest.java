package io.tributary.gateway.testing;

import io.tributary.gateway.app.GatewayApplication;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Base of the tests that drive a real gateway (random HTTP port) in front of the run's one real Kafka
 * broker ({@link SharedKafka}). All subclasses share one Spring context and one broker; each test
 * makes its own topics (names from {@link #uniqueTopic}), so tests do not see each other's records.
 */
@ExtendWith(SharedKafka.class)
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
public abstract class GatewayIntegrationTest {

    private static int topics;

    @LocalServerPort
    protected int httpPort;

    protected GatewayHttp http;
    protected static Admin admin;

    @DynamicPropertySource
    static void kafka(DynamicPropertyRegistry registry) {
        registry.add("tributary.gateway.bootstrap-servers", SharedKafka::bootstrapServers);
        // small SSE bounds, so the SSE tests reach them quickly (one context for every test)
        registry.add("tributary.gateway.sse.heartbeat-interval", () -> "300ms");
        registry.add("tributary.gateway.sse.buffer-size", () -> "64KB");
        registry.add("tributary.gateway.sse.slow-client-timeout", () -> "1s");
        registry.add("tributary.gateway.sse.max-streams", () -> "12");
        registry.add("tributary.gateway.write-timeout", () -> "2s");
        // tables: a digest map of 16 keys, so a table of a few hundred keys takes many scan windows
        registry.add("tributary.gateway.table.max-keys", () -> "16");
        registry.add("tributary.gateway.table.max-scans", () -> "80");
        registry.add("tributary.gateway.cors.allowed-origins", () -> "http://app.test, http://localhost:5173");
    }

    @BeforeAll
    static void openAdmin() {
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers()));
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    @BeforeEach
    void connect() {
        http = new GatewayHttp(httpPort);
    }

    protected static synchronized String uniqueTopic(String prefix) {
        return prefix + "-" + (++topics) + "-" + Long.toHexString(System.nanoTime() & 0xffffff);
    }

    /** Creates a topic directly with Kafka's AdminClient and returns its name. */
    protected static String createTopic(String prefix, int partitions, Map<String, String> configs) {
        String name = uniqueTopic(prefix);
        TestTopics.create(admin, name, partitions, configs);
        return name;
    }

    protected static String createTopic(String prefix, int partitions) {
        return createTopic(prefix, partitions, Map.of());
    }
}
