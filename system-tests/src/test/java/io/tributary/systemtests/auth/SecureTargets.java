package io.tributary.systemtests.auth;

import io.tributary.common.testing.KafkaBroker;
import io.tributary.common.testing.TestCertificates;
import io.tributary.common.testing.TestJwts;
import io.tributary.systemtests.ScriptedCluster;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * An Apache Kafka broker and a Tributary cluster (one coordinator, one broker, the gateway), each
 * with a SASL_SSL listener configured the same way, as the secured peer of {@code
 * ../shared/peers/kafka-secure} has it: PLAIN and SCRAM-SHA-512, PLAIN users (one, {@link #USER}), no
 * SCRAM users (Tributary's credential store is not there yet), the server certificate
 * signed by a test CA made here with keytool, no client certificates. Both keep their PLAINTEXT
 * listener (Kafka's inter-broker one, Tributary's internal one). Started together, closed together,
 * by PID.
 *
 * <p>Kafka reads its key store as PKCS12 and its users from the listener's JAAS entry
 * ({@code user_alice="..."}); Tributary reads the same key and chain as PEM files ({@code
 * ssl.keystore.type=PEM}, the key in {@code tls.key} and the chain in {@code tls.crt}, as
 * cert-manager writes them) and its users from {@code sasl.plain.users.file}. Tributary's internal
 * traffic is authenticated: its coordinator and broker share a cluster secret ({@link
 * #CLUSTER_SECRET}), which signs the control plane's calls and makes the broker's internal listener
 * and the coordinator's Kafka listener require SCRAM logins.
 *
 * <p>Each also has an {@code OAUTH} listener, SASL_PLAINTEXT with OAUTHBEARER only and KIP-768's
 * broker-side validation: tokens signed by {@link #JWT_KEY}, whose JWKS is the file {@code
 * jwks.json}, with {@link #JWT_ISSUER} and {@link #JWT_AUDIENCE}, and sessions of at most {@link
 * #OAUTH_MAX_REAUTH_MS} ({@code listener.name.oauth.oauthbearer.connections.max.reauth.ms}). Kafka
 * needs its validator named ({@code sasl.server.callback.handler.class}), a JAAS entry, and the
 * JWKS URL allowed by a system property; Tributary needs neither.
 */
final class SecureTargets implements AutoCloseable {

    static final String USER = "alice";
    static final String PASSWORD = "alice-secret";

    /** With {@link Security#AUTHORIZER}: the super user (a PLAIN user like {@link #USER}). */
    static final String ADMIN = "admin";

    static final String ADMIN_PASSWORD = "admin-secret";

    /**
     * Tributary's gateway's SCRAM user (a bootstrap user of the coordinator), with which it logs in
     * to the broker's internal listener.
     */
    static final String GATEWAY_USER = "gateway";

    static final String GATEWAY_PASSWORD = "gateway-secret";

    /**
     * The super users with {@link Security#AUTHORIZER}, the same on both: the admin, {@code
     * User:ANONYMOUS}, the principal of Kafka's PLAINTEXT inter-broker and controller connections
     * (as Kafka requires for a PLAINTEXT inter-broker listener; Tributary's internal listener
     * requires logins, and its brokers count as super users by their own), and Tributary's gateway
     * ({@link #GATEWAY_USER}, no user on Kafka).
     */
    static final String SUPER_USERS = "User:" + ADMIN + ";User:ANONYMOUS;User:" + GATEWAY_USER;

    /** What the targets check beyond authentication. */
    enum Security {
        /** No authorizer: every authenticated client may do everything. */
        AUTHENTICATION_ONLY,
        /**
         * The ACL authorizer ({@code StandardAuthorizer} on Kafka), {@link #SUPER_USERS}, {@code
         * allow.everyone.if.no.acl.found=false}; PLAIN users {@link #USER} and {@link #ADMIN}.
         */
        AUTHORIZER
    }

    /** The mechanisms both listeners enable; neither has SCRAM users. */
    static final String MECHANISMS = "PLAIN,SCRAM-SHA-512";

    static final String JWT_ISSUER = "https://issuer.test";
    static final String JWT_AUDIENCE = "secure-listeners-it";
    static final long OAUTH_MAX_REAUTH_MS = 2000;
    static final TestJwts.Signer JWT_KEY = TestJwts.Signer.create("RS256", "it-key");

    /** One secured target: its name in outcomes, its SASL_SSL and its OAUTH bootstrap addresses. */
    record Target(String name, String bootstrap, String oauthBootstrap) {}

    private final Path dir;
    private final KafkaBroker kafka;
    private final ScriptedCluster tributary;
    private final List<Target> targets;

    private SecureTargets(Path dir, KafkaBroker kafka, ScriptedCluster tributary, List<Target> targets) {
        this.dir = dir;
        this.kafka = kafka;
        this.tributary = tributary;
        this.targets = List.copyOf(targets);
    }

    /** The targets, Apache Kafka (the reference) first. */
    List<Target> all() {
        return targets;
    }

    /** The cluster's internal secret, which Tributary's coordinator and broker sign and check the control plane's calls with. */
    static final String CLUSTER_SECRET = "the secure targets' cluster secret, 32 bytes or more";

    /**
     * Tributary's coordinator's control plane ({@code http://127.0.0.1:<port>/internal/v1}), or
     * null when Tributary does not run.
     */
    String tributaryControlPlane() {
        return tributary == null ? null : "http://127.0.0.1:" + (8091 + tributary.portOffset()) + "/internal/v1";
    }

    /**
     * Tributary's broker's internal Kafka listener ({@code tributary.kafka.*}, registered as {@code
     * PLAINTEXT}; with the cluster secret it requires a SCRAM login), or -1 when Tributary does not
     * run.
     */
    int tributaryInternalPort() {
        return tributary == null ? -1 : 9092 + tributary.portOffset();
    }

    /** Tributary's coordinator's Kafka listener (the brokers forward group requests to it), or -1. */
    int tributaryCoordinatorKafkaPort() {
        return tributary == null ? -1 : 9191 + tributary.portOffset();
    }

    /** Tributary's gateway's HTTP address ({@code http://127.0.0.1:<port>}), or null. */
    String tributaryGateway() {
        return tributary == null ? null : "http://127.0.0.1:" + (8080 + tributary.portOffset());
    }

    /** The test CA's certificate, PEM: what a client trusts. */
    Path caPem() {
        return dir.resolve("ca.pem");
    }

    /**
     * A kafka-clients configuration for {@code target}'s SASL_SSL listener, logging in with PLAIN as
     * {@code user} and trusting the test CA; admin calls time out after 30 s (a hang becomes a
     * failure; not an assertion on speed).
     */
    Properties plainClient(Target target, String user, String password, String clientId) {
        Properties properties = new Properties();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap());
        properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        properties.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        properties.put("sasl.mechanism", "PLAIN");
        properties.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
        properties.put("ssl.truststore.type", "PEM");
        properties.put("ssl.truststore.location", caPem().toString());
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return properties;
    }

    /**
     * Makes the TLS material and starts Kafka and, when {@code withTributary}, Tributary at once,
     * for the test class {@code owner}: Tributary's logs go to {@code target/<owner's simple
     * name>-tributary-logs}, a directory of the class's own (classes run two at a time, and {@link
     * ScriptedCluster} empties its logs directory when it starts).
     */
    static SecureTargets start(Class<?> owner, boolean withTributary) throws Exception {
        return start(owner, withTributary, Security.AUTHENTICATION_ONLY);
    }

    /** {@link #start(Class, boolean)} with {@code security} on both targets. */
    static SecureTargets start(Class<?> owner, boolean withTributary, Security security) throws Exception {
        String logsName = owner.getSimpleName() + "-tributary-logs";
        Path dir = Files.createTempDirectory("systest-secure-");
        TestCertificates certificates = new TestCertificates(dir);
        certificates.ca("ca");
        certificates.signedServer("ca", "broker", "CN=localhost,O=Tributary test");
        Files.writeString(dir.resolve("tls.key"), certificates.privateKeyPem("broker.p12", "broker"));
        Files.writeString(dir.resolve("tls.crt"), certificates.chainPem("broker.p12", "broker"));
        Files.writeString(
                dir.resolve("users.properties"),
                USER + "=" + PASSWORD + "\n"
                        + (security == Security.AUTHORIZER ? ADMIN + "=" + ADMIN_PASSWORD + "\n" : ""));
        Files.writeString(dir.resolve("cluster.secret"), CLUSTER_SECRET + "\n");
        Files.writeString(dir.resolve("jwks.json"), TestJwts.jwks(JWT_KEY));
        int kafkaPort = freePort();
        int tributaryPort = freePort();
        int kafkaOAuthPort = freePort();
        int tributaryOAuthPort = freePort();
        try (var starters = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<KafkaBroker> kafka = CompletableFuture.supplyAsync(
                    () -> call(() -> startKafka(dir, kafkaPort, kafkaOAuthPort, security)), starters);
            CompletableFuture<ScriptedCluster> tributary = withTributary
                    ? CompletableFuture.supplyAsync(
                            () -> call(
                                    () -> startTributary(dir, logsName, tributaryPort, tributaryOAuthPort, security)),
                            starters)
                    : CompletableFuture.completedFuture(null);
            try {
                CompletableFuture.allOf(kafka, tributary).join();
            } catch (CompletionException e) {
                kafka.thenAccept(KafkaBroker::close);
                tributary.thenAccept(t -> {
                    if (t != null) {
                        t.downAndDeleteWork();
                    }
                });
                throw new IllegalStateException("could not start the secured targets: " + e.getCause(), e);
            }
            List<Target> targets = new ArrayList<>();
            targets.add(new Target("KAFKA", "127.0.0.1:" + kafkaPort, "127.0.0.1:" + kafkaOAuthPort));
            if (withTributary) {
                targets.add(new Target("TRIBUTARY", "127.0.0.1:" + tributaryPort, "127.0.0.1:" + tributaryOAuthPort));
            }
            return new SecureTargets(dir, kafka.join(), tributary.join(), targets);
        }
    }

    /** The JWKS as the {@code file:} URL both read (Kafka allows exactly this URL). */
    private static String jwksUrl(Path dir) {
        return dir.resolve("jwks.json").toUri().toString();
    }

    private static KafkaBroker startKafka(Path dir, int port, int oauthPort, Security security) throws Exception {
        String password = TestCertificates.PASSWORD;
        Map<String, String> settings = new HashMap<>(Map.of(
                "listener.name.oauth.sasl.enabled.mechanisms",
                "OAUTHBEARER",
                "listener.name.oauth.oauthbearer.sasl.jaas.config",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
                "listener.name.oauth.oauthbearer.sasl.server.callback.handler.class",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler",
                "listener.name.oauth.oauthbearer.sasl.oauthbearer.jwks.endpoint.url",
                jwksUrl(dir),
                "sasl.oauthbearer.expected.issuer",
                JWT_ISSUER,
                "sasl.oauthbearer.expected.audience",
                JWT_AUDIENCE,
                "listener.name.oauth.oauthbearer.connections.max.reauth.ms",
                Long.toString(OAUTH_MAX_REAUTH_MS)));
        settings.putAll(Map.of(
                "listener.security.protocol.map",
                "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,OAUTH:SASL_PLAINTEXT",
                "sasl.enabled.mechanisms",
                MECHANISMS,
                "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "listener.name.sasl_ssl.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_" + USER + "=\"" + PASSWORD
                        + "\""
                        + (security == Security.AUTHORIZER ? " user_" + ADMIN + "=\"" + ADMIN_PASSWORD + "\"" : "")
                        + ";",
                "ssl.keystore.type",
                "PKCS12",
                "ssl.keystore.location",
                dir.resolve("broker.p12").toString(),
                "ssl.keystore.password",
                password,
                "ssl.key.password",
                password,
                "ssl.client.auth",
                "none"));
        if (security == Security.AUTHORIZER) {
            settings.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            settings.put("super.users", SUPER_USERS);
            settings.put("allow.everyone.if.no.acl.found", "false");
        }
        return KafkaBroker.start(
                settings,
                List.of("SASL_SSL://127.0.0.1:" + port, "OAUTH://127.0.0.1:" + oauthPort),
                List.of("-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=" + jwksUrl(dir)));
    }

    private static ScriptedCluster startTributary(Path dir, String logsName, int port, int oauthPort, Security security)
            throws Exception {
        List<Integer> basePorts = List.of(8080, 8081, 9092, 8091, 9191, 9291);
        String javaOptions = String.join(
                " ",
                "-Xmx384m",
                "-Dtributary.broker.listeners=SASL_SSL://127.0.0.1:" + port + ",OAUTH://127.0.0.1:" + oauthPort,
                "-Dtributary.broker.listener.security.protocol.map=SASL_SSL:SASL_SSL,OAUTH:SASL_PLAINTEXT",
                "-Dtributary.broker.listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER",
                "-Dtributary.broker.listener.name.oauth.oauthbearer.sasl.oauthbearer.jwks.endpoint.url=" + jwksUrl(dir),
                "-Dtributary.broker.sasl.oauthbearer.expected.issuer=" + JWT_ISSUER,
                "-Dtributary.broker.sasl.oauthbearer.expected.audience=" + JWT_AUDIENCE,
                "-Dtributary.broker.listener.name.oauth.oauthbearer.connections.max.reauth.ms=" + OAUTH_MAX_REAUTH_MS,
                "-Dtributary.broker.sasl.enabled.mechanisms=" + MECHANISMS,
                "-Dtributary.broker.sasl.plain.users.file=" + dir.resolve("users.properties"),
                "-Dtributary.broker.ssl.keystore.type=PEM",
                "-Dtributary.broker.ssl.keystore.location=" + dir.resolve("tls.key"),
                "-Dtributary.broker.ssl.keystore.certificate.chain.location=" + dir.resolve("tls.crt"),
                "-Dtributary.broker.ssl.client.auth=none",
                "-Dtributary.coordinator.control.secret-file=" + dir.resolve("cluster.secret"),
                "-Dtributary.broker.cluster.secret-file=" + dir.resolve("cluster.secret"),
                "-Dtributary.coordinator.security.bootstrap-scram-users[0].name=" + GATEWAY_USER,
                "-Dtributary.coordinator.security.bootstrap-scram-users[0].password=" + GATEWAY_PASSWORD,
                security == Security.AUTHORIZER
                        ? "-Dtributary.broker.authorizer.enabled=true -Dtributary.broker.super.users=" + SUPER_USERS
                                + " -Dtributary.broker.allow.everyone.if.no.acl.found=false"
                        : "");
        // The gateway logs in to the broker's internal listener as a SCRAM user (its JAAS line has
        // spaces, which TRIBUTARY_JAVA_OPTS cannot carry: Spring's JSON variable can).
        String gatewayLogin = """
                {"tributary.gateway.client-properties.security.protocol": "SASL_PLAINTEXT",
                 "tributary.gateway.client-properties.sasl.mechanism": "SCRAM-SHA-512",
                 "tributary.gateway.client-properties.sasl.jaas.config":
                   "org.apache.kafka.common.security.scram.ScramLoginModule required username=\\"%s\\" password=\\"%s\\";"}
                """.formatted(GATEWAY_USER, GATEWAY_PASSWORD);
        ScriptedCluster cluster = ScriptedCluster.create(
                Files.createDirectories(dir.resolve("tributary")),
                logsName,
                basePorts,
                Map.of("TRIBUTARY_JAVA_OPTS", javaOptions, "SPRING_APPLICATION_JSON", gatewayLogin));
        cluster.upOrClean("--coordinators", "1", "--brokers", "1");
        return cluster;
    }

    @FunctionalInterface
    private interface Starter<T> {
        T start() throws Exception;
    }

    private static <T> T call(Starter<T> starter) {
        try {
            return starter.start();
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** A file holding {@code token}, for a client's {@code FileTokenLogin}. */
    Path tokenFile(String token) throws IOException {
        Path file = Files.createTempFile(dir, "token-", ".jwt");
        Files.writeString(file, token);
        return file;
    }

    /** Where the processes' logs are, for failure messages. */
    String logsHint() {
        return "Apache Kafka logs in " + kafka.home()
                + (tributary == null ? "" : ", Tributary logs in " + tributary.logsDir());
    }

    @Override
    public void close() {
        try {
            kafka.close();
        } finally {
            if (tributary != null) {
                tributary.downAndDeleteWork();
            }
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory left behind is harmless
            }
        }
    }
}
