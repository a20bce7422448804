package io.tributary.broker.replication;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.broker.api.DataPathMetrics;
import io.tributary.broker.api.FetchHandler;
import io.tributary.broker.api.ListOffsetsHandler;
import io.tributary.broker.api.OffsetForLeaderEpochHandler;
import io.tributary.broker.api.ProduceHandler;
import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.MetadataFollower;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.InternalClientSecurity;
import io.tributary.common.security.internal.InternalUsers;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.common.security.tls.TlsClient;
import io.tributary.common.security.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * One broker of an in-process cluster: its own index store and replica manager under {@code dir},
 * the data-path handlers served by common's Kafka listener on a free 127.0.0.1 port, a metadata
 * follower of the shared in-memory coordinator, and replication. {@link #stop} and {@link #start}
 * again keep the data (a broker restart; the listener gets a new port, registered anew).
 */
final class ReplicationTestBroker implements AutoCloseable {

    final int id;
    private final Path dir;
    private final FakeControlPlane coordinator;
    private final ReplicationConfig config;
    private final java.util.function.Function<ReplicationTestBroker, List<RequestHandler>> extraHandlers;
    IndexStore store;
    ReplicaManager replicas;
    MetadataFollower follower;
    KafkaProtocolServer server;
    Replication replication;

    ReplicationTestBroker(int id, Path dir, FakeControlPlane coordinator, ReplicationConfig config) {
        this(id, dir, coordinator, config, broker -> List.of());
    }

    /** With {@code extraHandlers} (stand-ins for APIs of other issues) served too. */
    ReplicationTestBroker(
            int id,
            Path dir,
            FakeControlPlane coordinator,
            ReplicationConfig config,
            java.util.function.Function<ReplicationTestBroker, List<RequestHandler>> extraHandlers) {
        this.extraHandlers = extraHandlers;
        this.id = id;
        this.dir = dir;
        this.coordinator = coordinator;
        this.config = config;
    }

    /**
     * The cluster secret, when the cluster's internal traffic is authenticated: the listener then
     * requires a SCRAM login (the brokers' credentials as the coordinators write them), a follower
     * fetch needs CLUSTER_ACTION (a closed authorizer: only internal principals have it) and the
     * fetchers log in as {@code tributary-broker-<id>}.
     */
    private ClusterSecret secret;

    ReplicationTestBroker withSecret(ClusterSecret secret) {
        this.secret = secret;
        return this;
    }

    /** The internal listener's TLS settings and the fetchers' TLS client, when the listeners are TLS. */
    private TlsSettings tls;

    private TlsClient tlsClient;

    ReplicationTestBroker withTls(TlsSettings tls, TlsClient tlsClient) {
        this.tls = tls;
        this.tlsClient = tlsClient;
        return this;
    }

    /**
     * The port this broker registers, when not its listener's: a proxy in front of it (the other
     * brokers connect there); the identity: the listener's own port.
     */
    private java.util.function.IntUnaryOperator advertisedPort = port -> port;

    ReplicationTestBroker withAdvertisedPort(java.util.function.IntUnaryOperator advertisedPort) {
        this.advertisedPort = advertisedPort;
        return this;
    }

    /** How this broker's fetchers (and a test's clients of its kind) secure their connections. */
    InternalClientSecurity clientSecurity() {
        return new InternalClientSecurity(
                Optional.ofNullable(secret).map(s -> s.brokerKey(id).kafkaLogin()), Optional.ofNullable(tlsClient));
    }

    ReplicationTestBroker start() {
        store = IndexStore.open(dir.resolve("index"));
        replicas = new ReplicaManager(
                new ReplicaManagerConfig(
                        id, dir.resolve("data"), LogConfig.defaults(), 1, ProducerStateConfig.defaults()),
                store,
                Clock.systemUTC(),
                Runnable::run);
        follower = new MetadataFollower(
                new MetadataFollower.Config(
                        id,
                        Optional.empty(),
                        Duration.ofMillis(100),
                        Duration.ofSeconds(6),
                        Duration.ofSeconds(1),
                        Duration.ofMillis(50),
                        Duration.ofSeconds(5)),
                coordinator,
                () -> List.of(replicas),
                InstantSource.system());
        List<RequestHandler> handlers = new java.util.ArrayList<>(List.of(
                new ProduceHandler(replicas, follower, Duration.ofSeconds(30), DataPathMetrics.NONE),
                new FetchHandler(
                        replicas,
                        follower,
                        Duration.ofSeconds(30),
                        DataPathMetrics.NONE,
                        secret == null
                                ? AccessControl.OPEN
                                : AccessControl.of(() ->
                                        AclAuthorizer.empty(new AclAuthorizer.Settings(java.util.Set.of(), false)))),
                new ListOffsetsHandler(replicas, follower),
                new OffsetForLeaderEpochHandler(replicas, follower)));
        handlers.addAll(extraHandlers.apply(this));
        server = new KafkaProtocolServer(
                ProtocolServerConfig.defaults("broker-" + id, "127.0.0.1", 0),
                handlers,
                new ProtocolMetrics(new SimpleMeterRegistry(), "broker-" + id),
                new ListenerSecurity(
                        tls,
                        secret == null
                                ? null
                                : new SaslSettings(List.of("SCRAM-SHA-512"), new DerivedCredentials(secret))));
        server.start();
        replication = new Replication(
                        replicas,
                        coordinator,
                        follower::isActive,
                        config,
                        Clock.systemUTC(),
                        ReplicationMetrics.NONE,
                        clientSecurity())
                .start();
        follower.start(List.of(new BrokerEndpoint("PLAINTEXT", "127.0.0.1", advertisedPort.applyAsInt(server.port()))));
        return this;
    }

    /** Each broker's SCRAM-SHA-512 credential made from its derived password, as the coordinators store it. */
    private record DerivedCredentials(ClusterSecret secret) implements CredentialLookup {
        private static final byte[] SALT = "a test salt".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

        @Override
        public Optional<ScramCredentialData> scram(String mechanism, String user) {
            java.util.OptionalInt broker = InternalUsers.brokerId(KafkaPrincipal.user(user));
            if (!mechanism.equals("SCRAM-SHA-512") || broker.isEmpty()) {
                return Optional.empty();
            }
            String password = secret.brokerKey(broker.getAsInt()).kafkaLogin().password();
            return Optional.of(
                    ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, password, SALT, ScramKeys.MIN_ITERATIONS));
        }

        @Override
        public boolean checkPlain(String user, char[] password) {
            return false;
        }
    }

    int port() {
        return server.port();
    }

    /** Quick lag and fetch timings for a small cluster whose follower catches up within a second. */
    static ReplicationConfig quickConfig() {
        return ReplicationConfig.defaults()
                .withLagTime(Duration.ofSeconds(1), Duration.ofMillis(100))
                .withFetchTiming(Duration.ofMillis(100), Duration.ofMillis(100));
    }

    /**
     * Waits until every broker is active, creates {@code topic} (one partition on two replicas) and
     * waits until every broker's image has it.
     */
    static void awaitTopic(FakeControlPlane coordinator, List<ReplicationTestBroker> brokers, String topic) {
        Duration wait = Duration.ofSeconds(30);
        for (ReplicationTestBroker broker : brokers) {
            org.awaitility.Awaitility.await().atMost(wait).until(broker.follower::isActive);
        }
        long version = coordinator.createTopic(topic, 1, 2, java.util.Map.of()).version();
        for (ReplicationTestBroker broker : brokers) {
            org.awaitility.Awaitility.await()
                    .atMost(wait)
                    .until(() -> broker.follower.image().version() >= version);
        }
    }

    Partition partition(String topic, int index) {
        return replicas.partition(topic, index).orElseThrow();
    }

    boolean running() {
        return server != null;
    }

    /** Stops everything, in the application's order; the data stays. */
    void stop() {
        if (server == null) {
            return;
        }
        follower.close();
        replication.close();
        server.close();
        replicas.close();
        store.close();
        server = null;
    }

    @Override
    public void close() {
        stop();
    }
}
