package io.tributary.common.protocol;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/** Handlers and servers that the listener's tests register and start. */
final class TestHandlers {

    static final String CLUSTER_ID = "tributary-test-cluster";
    static final int NODE_ID = 0;

    private TestHandlers() {}

    /** A handler made of a version range and a function. */
    record Handler(ApiVersionRange versions, Function<KafkaRequest, AbstractResponse> function)
            implements RequestHandler {

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            return function.apply(request);
        }
    }

    static RequestHandler handler(
            ApiKeys api, int minVersion, int maxVersion, Function<KafkaRequest, AbstractResponse> function) {
        return new Handler(ApiVersionRange.of(api, minVersion, maxVersion), function);
    }

    /** Metadata, all versions: the cluster is one node, {@link #NODE_ID} on 127.0.0.1 and {@code port}. */
    static RequestHandler metadataOfOneNode(IntSupplier port) {
        return handler(
                ApiKeys.METADATA, ApiKeys.METADATA.oldestVersion(), ApiKeys.METADATA.latestVersion(), request -> {
                    var brokers = new MetadataResponseData.MetadataResponseBrokerCollection();
                    brokers.add(new MetadataResponseData.MetadataResponseBroker()
                            .setNodeId(NODE_ID)
                            .setHost("127.0.0.1")
                            .setPort(port.getAsInt()));
                    var data = new MetadataResponseData()
                            .setBrokers(brokers)
                            .setClusterId(CLUSTER_ID)
                            .setControllerId(NODE_ID);
                    return new MetadataResponse(data, request.header().apiVersion());
                });
    }

    /** A successful DescribeCluster response (no nodes: the tests only look at its error code). */
    static AbstractResponse describeClusterOk(KafkaRequest request) {
        return new DescribeClusterResponse(
                new DescribeClusterResponseData().setClusterId(CLUSTER_ID).setControllerId(NODE_ID));
    }

    /** A successful Produce response (no partitions). */
    static AbstractResponse produceOk(KafkaRequest request) {
        return new ProduceResponse(new ProduceResponseData());
    }

    /**
     * Starts a listener secured with {@code security} that serves Metadata (one node: itself) and
     * DescribeCluster, which records the principal of the connection that asked in {@code seen}; the
     * caller closes it.
     */
    static KafkaProtocolServer startRecordingPrincipals(
            String name, ListenerSecurity security, MeterRegistry registry, AtomicReference<KafkaPrincipal> seen) {
        return startRecordingPrincipals(name, security, registry, seen, new AtomicReference<>());
    }

    /** As above; {@code servedOn} gets the thread that served the last DescribeCluster. */
    static KafkaProtocolServer startRecordingPrincipals(
            String name,
            ListenerSecurity security,
            MeterRegistry registry,
            AtomicReference<KafkaPrincipal> seen,
            AtomicReference<Thread> servedOn) {
        ProtocolServerConfig config = ProtocolServerConfig.defaults(name, "127.0.0.1", 0);
        var self = new AtomicReference<KafkaProtocolServer>();
        var server = new KafkaProtocolServer(
                config,
                List.of(metadataOfOneNode(() -> self.get().port()), handler(ApiKeys.DESCRIBE_CLUSTER, 0, 2, request -> {
                    seen.set(request.connection().principal());
                    servedOn.set(Thread.currentThread());
                    return describeClusterOk(request);
                })),
                new ProtocolMetrics(registry, config.name()),
                security);
        self.set(server);
        server.start();
        return server;
    }

    /** Starts a listener with {@code handlers}; the caller closes it. */
    static KafkaProtocolServer start(ProtocolServerConfig config, MeterRegistry registry, RequestHandler... handlers) {
        var server = new KafkaProtocolServer(config, List.of(handlers), new ProtocolMetrics(registry, config.name()));
        server.start();
        return server;
    }

    /**
     * Awaitility for what the listener does after the client can see it (metrics recorded after a
     * response is written, a connection forgotten after it is closed): polls at once and then often.
     */
    static ConditionFactory eventually() {
        return Awaitility.await()
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(5))
                .atMost(Duration.ofSeconds(30));
    }

    /** The count of a counter, 0 while it does not exist. */
    static double count(MeterRegistry registry, String name, String... tags) {
        Counter counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    /** Waits for a latch the test controls; a safety net of a minute instead of forever. */
    static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(Duration.ofMinutes(1).toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
