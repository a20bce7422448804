package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.ControlPlaneSignature;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Proves the chart's wiring of configuration on real processes: renders the chart with its default
 * security (clients log in on the brokers' client listener, internal logins and a signed control
 * plane from the generated cluster secret, the authorizer on; 3 coordinators, 2 brokers, 1 gateway,
 * a health group added through each component's {@code config}), and starts
 * one service jar per pod exactly as the container would run: the Dockerfile's ENTRYPOINT and ENV,
 * then the container's environment from the manifest, with the downward API resolved (pod name,
 * pod-index label), the ConfigMap written where it is mounted, volumes mapped to temporary
 * directories (a Secret's items written from the rendered Secret), and only these substitutions:
 * per-pod DNS names become 127.0.0.1, bind addresses 0.0.0.0 become 127.0.0.1, and each container
 * port becomes a free local port. Every pod must
 * then pass the probes the manifest declares, tag its metrics with its pod name, serve its Kafka
 * listener (and the brokers their external listener) on the port the manifest gives it, and read
 * the rendered application.yaml; the three
 * coordinators elect one Raft leader through the peer list the chart derived from pod names; and a
 * Prometheus run with {@code deploy/prometheus/prometheus.yml} scrapes them all.
 *
 * <p>Processes are stopped by PID in {@link #stopAll()}, also when a test fails.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HelmManifestsIT {

    private static final Logger log = LoggerFactory.getLogger(HelmManifestsIT.class);
    private static final JsonMapper JSON = new JsonMapper();
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
    /** host:port of a pod behind a headless Service: <pod>.<service>.<namespace>.svc.<domain>:<port>. */
    private static final Pattern POD_ADDRESS =
            Pattern.compile("([a-z0-9-]+)\\.([a-z0-9-]+)\\." + HelmChart.NAMESPACE + "\\.svc\\.cluster\\.local:(\\d+)");

    /** A pod's DNS name alone (an advertised host): <pod>.<service>.<namespace>.svc.<domain>. */
    private static final Pattern POD_HOST =
            Pattern.compile("([a-z0-9-]+)\\.([a-z0-9-]+)\\." + HelmChart.NAMESPACE + "\\.svc\\.cluster\\.local");

    /** JVM options for six JVMs sharing a CI machine: quick start, small heaps (through the chart's jvmOptions). */
    private static final String TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m";

    private static final Map<String, Object> VALUES = Map.ofEntries(
            Map.entry("coordinator.jvmOptions", TEST_JVM_OPTIONS),
            Map.entry("broker.jvmOptions", TEST_JVM_OPTIONS),
            Map.entry("gateway.jvmOptions", TEST_JVM_OPTIONS),
            Map.entry("coordinator.replicas", 3),
            Map.entry("broker.replicas", 2),
            Map.entry("gateway.autoscaling.enabled", false),
            Map.entry("gateway.replicas", 1),
            Map.entry("coordinator.config.management.endpoint.health.group.chart-config.include", "ping"),
            Map.entry("broker.config.management.endpoint.health.group.chart-config.include", "ping"),
            Map.entry("gateway.config.management.endpoint.health.group.chart-config.include", "ping"),
            // The configprops endpoint, with values, shows what each environment variable bound to.
            Map.entry("coordinator.config.management.endpoints.web.exposure.include", "*"),
            Map.entry("broker.config.management.endpoints.web.exposure.include", "*"),
            Map.entry("gateway.config.management.endpoints.web.exposure.include", "*"),
            Map.entry("coordinator.config.management.endpoint.configprops.show-values", "always"),
            Map.entry("broker.config.management.endpoint.configprops.show-values", "always"),
            Map.entry("gateway.config.management.endpoint.configprops.show-values", "always"),
            // Values other than the services' defaults, so that binding them is visible.
            Map.entry("coordinator.groups.sessionTimeout", "40s"),
            Map.entry("coordinator.groups.maxGroups", 5000),
            Map.entry("coordinator.groups.defaultAssignor", "range"),
            Map.entry("coordinator.lag.refreshInterval", "2s"),
            Map.entry("broker.cluster.controlledShutdownTimeout", "3s"),
            // The external listener on, so that its variables bind and its endpoint is registered.
            Map.entry("broker.external.enabled", true),
            // Secured by default; the external listener is PLAINTEXT only, chosen explicitly.
            Map.entry("broker.external.securityProtocol", "PLAINTEXT"),
            Map.entry("broker.external.advertisedHost", "nodes.example.com"),
            Map.entry("broker.external.maxConnections", 77),
            Map.entry("gateway.groups.maxStreams", 50),
            Map.entry("gateway.groups.sessionTimeout", "20s"),
            Map.entry("gateway.groups.heartbeatInterval", "2s"));

    /**
     * Variables the manifests set that no configuration properties bean binds: the instance tag is
     * a placeholder in each application.yaml (its effect is the metrics' instance tag, checked below).
     */
    private static final Set<String> NOT_BOUND_TO_PROPERTIES = Set.of(
            "TRIBUTARY_INSTANCE",
            // The broker reads the authorizer's Kafka-named settings from its environment, not through a
            // properties bean; their effect (logins required, a user without ACLs refused) is checked below.
            "TRIBUTARY_BROKER_AUTHORIZER_ENABLED",
            "TRIBUTARY_BROKER_SUPER_USERS",
            "TRIBUTARY_BROKER_ALLOW_EVERYONE_IF_NO_ACL_FOUND");

    /** The origin Spring Boot reports for a value from an environment variable. */
    private static final Pattern ENVIRONMENT_ORIGIN =
            Pattern.compile("System Environment Property \"([A-Za-z0-9_]+)\"");

    @TempDir
    static Path work;

    private static Path repoRoot;
    /** The rendered manifests the pods run (their generated Secrets among them). */
    private static List<HasMetadata> rendered;

    private static Path logsDir;
    private static final List<PodRun> pods = new ArrayList<>();
    /** The Prometheus that scrapes the pods with deploy/prometheus/prometheus.yml, once started. */
    private static volatile Process prometheus;

    private static final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(3))
            .build();

    /** One pod of the rendered manifests, as started here. */
    record PodRun(
            String name,
            String component,
            Container container,
            Map<String, Integer> localPorts,
            Map<String, String> env,
            Map<String, Path> mounts,
            Path log,
            Process process) {

        int port(String name) {
            Integer port = localPorts.get(name);
            assertThat(port).as(this.name + " port " + name).isNotNull();
            return port;
        }
    }

    @BeforeAll
    static void renderAndStartEveryPod() throws IOException {
        repoRoot = HelmChart.repoRoot();
        logsDir = Path.of(System.getProperty("tributary.build.dir", "target"))
                .toAbsolutePath()
                .resolve("helm-manifests-it-logs");
        Files.createDirectories(logsDir);
        try (Stream<Path> old = Files.list(logsDir)) {
            for (Path file : old.toList()) {
                Files.delete(file);
            }
        }
        Runtime.getRuntime().addShutdownHook(new Thread(HelmManifestsIT::stopAll, "helm-manifests-it-stopper"));

        List<HasMetadata> resources = HelmChart.render(Optional.empty(), VALUES);
        rendered = resources;
        Image image = Image.fromDockerfile(repoRoot.resolve("Dockerfile"));
        List<PlannedPod> planned = plan(resources);
        Set<Integer> taken = new HashSet<>();
        Map<String, Map<Integer, Integer>> portsByPod = new LinkedHashMap<>();
        for (PlannedPod pod : planned) {
            Map<Integer, Integer> ports = new LinkedHashMap<>();
            for (ContainerPort port : pod.container().getPorts()) {
                ports.put(port.getContainerPort(), freePort(taken));
            }
            portsByPod.put(pod.name(), ports);
        }
        for (PlannedPod pod : planned) {
            pods.add(start(pod, resources, image, portsByPod));
        }
    }

    @AfterAll
    static void stopAll() {
        Process scraper = prometheus;
        if (scraper != null) {
            ProcessHandle.of(scraper.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
        for (PodRun pod : pods) {
            ProcessHandle.of(pod.process().pid()).ifPresent(ProcessHandle::destroy);
        }
        for (PodRun pod : pods) {
            try {
                if (!pod.process().waitFor(30, TimeUnit.SECONDS)) {
                    log.warn(
                            "{} (pid {}) ignored SIGTERM for 30 s; killing it",
                            pod.name(),
                            pod.process().pid());
                    ProcessHandle.of(pod.process().pid()).ifPresent(ProcessHandle::destroyForcibly);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ProcessHandle.of(pod.process().pid()).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    @Test
    @Order(1)
    void everyPodOfTheRenderedManifestsBecomesReadyOnItsReadinessProbe() {
        assertThat(pods)
                .extracting(PodRun::name)
                .containsExactlyInAnyOrder(
                        "demo-tributary-coordinator-0",
                        "demo-tributary-coordinator-1",
                        "demo-tributary-coordinator-2",
                        "demo-tributary-broker-0",
                        "demo-tributary-broker-1",
                        "demo-tributary-gateway-0");
        await().atMost(READY_TIMEOUT)
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptionsInstanceOf(IOException.class)
                .untilAsserted(() -> {
                    for (PodRun pod : pods) {
                        assertThat(pod.process().isAlive())
                                .as("%s exited; its log is %s:%n%s", pod.name(), pod.log(), tail(pod.log()))
                                .isTrue();
                        var probe = pod.container().getReadinessProbe().getHttpGet();
                        assertThat(get(pod.port(probe.getPort().getStrVal()), probe.getPath())
                                        .statusCode())
                                .as(pod.name() + " " + probe.getPath())
                                .isEqualTo(200);
                    }
                });
    }

    @Test
    @Order(2)
    void theLivenessAndStartupProbesAnswerToo() throws Exception {
        for (PodRun pod : pods) {
            for (var probe : List.of(
                    pod.container().getLivenessProbe().getHttpGet(),
                    pod.container().getStartupProbe().getHttpGet())) {
                HttpResponse<String> response = get(pod.port(probe.getPort().getStrVal()), probe.getPath());
                assertThat(response.statusCode())
                        .as(pod.name() + " " + probe.getPath())
                        .isEqualTo(200);
            }
        }
    }

    @Test
    @Order(2)
    void theJvmRunsWithTheImageFlagsAndTheChartsJvmOptions() throws IOException {
        for (PodRun pod : pods) {
            assertThat(pod.env()).containsEntry("JDK_JAVA_OPTIONS", TEST_JVM_OPTIONS);
            assertThat(Files.readString(pod.log()))
                    .as(pod.name() + " log")
                    .contains("Picked up JDK_JAVA_OPTIONS: " + TEST_JVM_OPTIONS)
                    .doesNotContain("WARNING: A restricted method", "WARNING: sun.misc.Unsafe");
        }
    }

    @Test
    @Order(3)
    void eachPodTagsItsMetricsWithItsPodNameOnTheScrapedPort() throws Exception {
        for (PodRun pod : pods) {
            HttpResponse<String> metrics = get(pod.port("http"), "/actuator/prometheus");

            assertThat(metrics.statusCode()).as(pod.name()).isEqualTo(200);
            assertThat(metrics.body())
                    .as(pod.name() + " metrics")
                    .contains("instance=\"" + pod.name() + "\"", "service=\"" + pod.component() + "\"");
        }
    }

    @Test
    @Order(4)
    void kafkaListenersServeOnThePortsTheManifestDeclares() throws Exception {
        for (PodRun pod : pods) {
            if (pod.component().equals("gateway")) {
                continue;
            }
            JsonNode readiness = JSON.readTree(
                    get(pod.port("http"), "/actuator/health/readiness").body());

            assertThat(readiness.at("/components/kafkaListener/status").asString())
                    .as(pod.name())
                    .isEqualTo("UP");
            String internal = pod.localPorts().containsKey("internal") ? "internal" : "kafka";
            assertThat(readiness.at("/components/kafkaListener/details/port").asInt())
                    .as(pod.name() + " listens on the local port of its containerPort '" + internal + "'")
                    .isEqualTo(pod.port(internal));
            if (pod.component().equals("broker")) {
                JsonNode health =
                        JSON.readTree(get(pod.port("http"), "/actuator/health").body());
                assertThat(health.at("/components/kafkaNamedListeners/details/CLIENT/port")
                                .asInt())
                        .as(pod.name() + ": the secured client listener on the local port of containerPort 'kafka'")
                        .isEqualTo(pod.port("kafka"));
            }
        }
    }

    @Test
    @Order(5)
    void everyServiceReadsTheApplicationYamlRenderedFromItsConfigValue() throws Exception {
        for (PodRun pod : pods) {
            HttpResponse<String> group = get(pod.port("http"), "/actuator/health/chart-config");

            assertThat(group.statusCode())
                    .as(pod.name() + ": the health group defined in " + pod.component() + ".config")
                    .isEqualTo(200);
        }
    }

    /**
     * Spring Boot ignores a variable that names no property, so a misspelt one would go unnoticed:
     * every TRIBUTARY_* and SERVER_* variable of the manifests must be an input, with the value the
     * container has, of some configuration properties bean (the actuator's configprops endpoint
     * reports each bound property's origin).
     */
    @Test
    @Order(5)
    void everyConfigurationVariableOfTheManifestsBindsToAPropertyWithItsValue() throws Exception {
        for (PodRun pod : pods) {
            HttpResponse<String> response = get(pod.port("http"), "/actuator/configprops");
            assertThat(response.statusCode())
                    .as(pod.name() + " /actuator/configprops")
                    .isEqualTo(200);
            Map<String, String> bound = new LinkedHashMap<>();
            environmentInputs(JSON.readTree(response.body()), bound);

            List<String> variables = pod.container().getEnv().stream()
                    .map(EnvVar::getName)
                    .filter(name -> name.startsWith("TRIBUTARY_") || name.startsWith("SERVER_"))
                    .filter(name -> !NOT_BOUND_TO_PROPERTIES.contains(name))
                    .toList();
            assertThat(variables).as(pod.name()).isNotEmpty();
            for (String name : variables) {
                String value = pod.env().get(name);
                if (value.contains("${tributary.secrets.")) {
                    // A password placeholder, resolved from its mounted file (the config tree) when bound:
                    // the report shows the input as written or masked. That it resolves is shown by the
                    // logins below (the admin the coordinators wrote, the gateway's in the helm test).
                    assertThat(bound)
                            .as("%s: env %s binds to a configuration property", pod.name(), name)
                            .containsKey(name);
                } else {
                    assertThat(bound)
                            .as("%s: env %s binds to a configuration property", pod.name(), name)
                            .containsEntry(name, value);
                }
            }
        }
    }

    @Test
    @Order(5)
    void theGatewaysAdvertisedUrlFromItsPodIpReachesIt() throws Exception {
        for (PodRun pod : pods) {
            if (!pod.component().equals("gateway")) {
                continue;
            }
            String url = pod.env().get("TRIBUTARY_GATEWAY_GROUPS_ADVERTISED_URL");
            assertThat(url)
                    .as(pod.name() + ": http://$(POD_IP):<http port>, localized")
                    .isEqualTo("http://127.0.0.1:" + pod.port("http"));
            HttpResponse<String> ready = http.send(
                    HttpRequest.newBuilder(URI.create(url + "/actuator/health/readiness"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).as(url).isEqualTo(200);
        }
    }

    /** Every input of the configprops report that came from an environment variable: name to value. */
    private static void environmentInputs(JsonNode node, Map<String, String> bound) {
        if (node.isObject()) {
            JsonNode origin = node.get("origin");
            JsonNode value = node.get("value");
            if (origin != null && origin.isString() && value != null && !value.isContainer()) {
                Matcher env = ENVIRONMENT_ORIGIN.matcher(origin.asString());
                if (env.find()) {
                    bound.put(env.group(1), value.asString());
                }
            }
        }
        node.forEach(child -> environmentInputs(child, bound));
    }

    @Test
    @Order(6)
    void brokersRegisterTheirAdvertisedPodAddressWithTheCoordinators() throws Exception {
        PodRun coordinator = pods.stream()
                .filter(p -> p.component().equals("coordinator"))
                .findFirst()
                .orElseThrow();
        assertThat(get(coordinator.port("http"), "/internal/v1/cluster").statusCode())
                .as("the control plane refuses a call no broker signed (the generated cluster secret)")
                .isEqualTo(401);
        ClusterSecret secret =
                ClusterSecret.read(coordinator.mounts().get("cluster-secret").resolve("cluster.secret"));
        URI cluster = URI.create("http://127.0.0.1:" + coordinator.port("http") + "/internal/v1/cluster");
        HttpResponse<String> signed = http.send(
                HttpRequest.newBuilder(cluster)
                        .header(
                                "Authorization",
                                ControlPlaneSignature.sign(
                                        secret.brokerKey(0),
                                        "GET",
                                        cluster.getRawPath(),
                                        null,
                                        System.currentTimeMillis()))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(signed.statusCode()).as(signed.body()).isEqualTo(200);
        JsonNode brokers = JSON.readTree(signed.body()).get("brokers");

        for (PodRun pod : pods) {
            if (!pod.component().equals("broker")) {
                continue;
            }
            int id = Integer.parseInt(pod.name().substring(pod.name().lastIndexOf('-') + 1));
            JsonNode broker = null;
            for (JsonNode b : brokers) {
                if (b.get("id").asInt() == id) {
                    broker = b;
                }
            }
            assertThat(broker).as(pod.name() + " registered: " + brokers).isNotNull();
            assertThat(broker.get("fenced").asBoolean())
                    .as(pod.name() + " fenced")
                    .isFalse();
            Map<String, String> endpoints = new LinkedHashMap<>();
            for (JsonNode endpoint : broker.get("endpoints")) {
                endpoints.put(
                        endpoint.get("listener").asString(),
                        endpoint.get("host").asString() + ":"
                                + endpoint.get("port").asInt());
            }
            assertThat(endpoints)
                    .as(pod.name() + ": its pod DNS name (from $(TRIBUTARY_INSTANCE)), localized, at the port each"
                            + " listener bound; the external one at its entry of the advertised addresses"
                            + " (NodePort: nodePortBase + ordinal)")
                    .containsOnly(
                            Map.entry("PLAINTEXT", "127.0.0.1:" + pod.port("internal")),
                            Map.entry("CLIENT", "127.0.0.1:" + pod.port("kafka")),
                            Map.entry("EXTERNAL", "nodes.example.com:" + (31092 + id)));
            JsonNode health =
                    JSON.readTree(get(pod.port("http"), "/actuator/health").body());
            assertThat(health.at("/components/kafkaExternalListener/status").asString())
                    .as(pod.name() + " external listener")
                    .isEqualTo("UP");
            assertThat(health.at("/components/kafkaExternalListener/details/port")
                            .asInt())
                    .as(pod.name() + " external listener on the local port of its containerPort 'external'")
                    .isEqualTo(pod.port("external"));
        }
    }

    /**
     * The default install is authenticated: a Kafka client logs in on the brokers' client listener
     * with the admin password the chart generated (both SCRAM mechanisms); a wrong password and a
     * client that does not log in get nowhere; a user the admin creates is refused until an ACL
     * allows it (the authorizer is on, allow.everyone.if.no.acl.found false).
     */
    @Test
    @Order(6)
    void kafkaClientsLogInWithTheGeneratedAdminPasswordAndOthersGetNothing() throws Exception {
        Secret users = HelmChart.named(rendered, Secret.class, HelmChart.RELEASE + "-tributary-users");
        String password =
                new String(Base64.getDecoder().decode(users.getData().get("admin-password")), StandardCharsets.UTF_8);
        String bootstrap = String.join(
                ",",
                pods.stream()
                        .filter(p -> p.component().equals("broker"))
                        .map(p -> "127.0.0.1:" + p.port("kafka"))
                        .toList());

        for (String mechanism : List.of("SCRAM-SHA-512", "SCRAM-SHA-256")) {
            String topic = "secured-" + mechanism.toLowerCase(java.util.Locale.ROOT);
            try (Admin admin = Admin.create(kafkaLogin(bootstrap, "admin", password, mechanism))) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                        .as("the admin, over " + mechanism)
                        .contains(topic);
            }
        }
        try (Admin wrong = Admin.create(kafkaLogin(bootstrap, "admin", password + "x", "SCRAM-SHA-512"))) {
            assertThatThrownBy(() -> wrong.listTopics().names().get(30, TimeUnit.SECONDS))
                    .as("a wrong password")
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
        Map<String, Object> anonymous = new LinkedHashMap<>(kafkaLogin(bootstrap, "admin", password, "SCRAM-SHA-512"));
        anonymous.keySet().removeIf(key -> key.startsWith("sasl."));
        anonymous.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT");
        try (Admin plaintext = Admin.create(anonymous)) {
            assertThatThrownBy(() -> plaintext.listTopics().names().get(30, TimeUnit.SECONDS))
                    .as("a client that does not log in")
                    .isInstanceOf(java.util.concurrent.ExecutionException.class);
        }

        try (Admin admin = Admin.create(kafkaLogin(bootstrap, "admin", password, "SCRAM-SHA-512"))) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "alice", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "alice-secret")))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    try (Admin alice = Admin.create(kafkaLogin(bootstrap, "alice", "alice-secret", "SCRAM-SHA-512"))) {
                        assertThat(alice.listTopics().names().get(10, TimeUnit.SECONDS))
                                .as("alice logs in, and may describe no topic")
                                .isEmpty();
                        assertThatThrownBy(() -> alice.createTopics(List.of(new NewTopic("alices", 1, (short) 1)))
                                        .all()
                                        .get(10, TimeUnit.SECONDS))
                                .hasCauseInstanceOf(TopicAuthorizationException.class);
                    }
                });
    }

    /** An admin client config logging in on a SASL_PLAINTEXT listener with SCRAM. */
    private static Map<String, Object> kafkaLogin(String bootstrap, String user, String password, String mechanism) {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        config.put(SaslConfigs.SASL_MECHANISM, mechanism);
        config.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return config;
    }

    @Test
    @Order(6)
    void statefulPodsKeepTheirDataOnTheDataVolume() {
        for (PodRun pod : pods) {
            if (pod.component().equals("gateway")) {
                continue;
            }
            Path volume = pod.mounts().get("data");
            assertThat(volume).as(pod.name() + " mounts a data volume").isNotNull();
            assertThat(volume.resolve(pod.component()))
                    .as(pod.name() + " data directory inside its volume")
                    .isDirectory();
        }
    }

    @Test
    @Order(6)
    void theCoordinatorsElectOneRaftLeaderThroughThePeerListTheChartDerivedFromPodNames() {
        List<PodRun> coordinators =
                pods.stream().filter(p -> p.component().equals("coordinator")).toList();
        assertThat(coordinators).hasSize(3);
        Pattern role = Pattern.compile("\"role\":\"(\\w+)\"");
        Pattern leader = Pattern.compile("\"leader\":\"(\\w+)\"");

        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptionsInstanceOf(IOException.class)
                .untilAsserted(() -> {
                    List<String> roles = new ArrayList<>();
                    Set<String> leaders = new HashSet<>();
                    for (PodRun pod : coordinators) {
                        String body = get(pod.port("http"), "/actuator/health/metadataRaft")
                                .body();
                        Matcher r = role.matcher(body);
                        Matcher l = leader.matcher(body);
                        assertThat(r.find() && l.find())
                                .as(pod.name() + ": " + body)
                                .isTrue();
                        roles.add(r.group(1));
                        leaders.add(l.group(1));
                    }
                    assertThat(leaders).as("the leader each voter names").hasSize(1);
                    assertThat(roles).as("roles").containsExactlyInAnyOrder("LEADER", "FOLLOWER", "FOLLOWER");
                });
    }

    @Test
    @Order(8)
    void theHelmTestPodProducesAnEventThroughTheGatewayAndReadsItBack() throws Exception {
        Map<String, Object> sets = new LinkedHashMap<>(VALUES);
        sets.put("tests.produceConsume", true);
        Pod hook = HelmChart.renderTestHooks(sets).stream()
                .filter(Pod.class::isInstance)
                .map(Pod.class::cast)
                .filter(pod -> pod.getMetadata().getName().equals(HelmChart.RELEASE + "-tributary-test-gateway"))
                .findFirst()
                .orElseThrow();
        Container test = hook.getSpec().getContainers().getFirst();
        PodRun gateway = pods.stream()
                .filter(pod -> pod.component().equals("gateway"))
                .findFirst()
                .orElseThrow();
        int port = gateway.port(
                gateway.container().getReadinessProbe().getHttpGet().getPort().getStrVal());

        // The pod's own command and environment; only the Service's address becomes the local port.
        var command = new ProcessBuilder(test.getCommand()).redirectErrorStream(true);
        for (var env : test.getEnv()) {
            command.environment().put(env.getName(), env.getValue());
        }
        assertThat(command.environment().get("GATEWAY")).startsWith("http://");
        command.environment().put("GATEWAY", "http://127.0.0.1:" + port);
        Path output = logsDir.resolve("helm-test-pod.log");
        Process run = command.redirectOutput(output.toFile()).start();
        try {
            assertThat(run.waitFor(3, TimeUnit.MINUTES))
                    .as("the helm test script finished; output so far:%n%s", tail(output))
                    .isTrue();
        } finally {
            ProcessHandle.of(run.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
        assertThat(run.exitValue())
                .as("the helm test script's exit code; its output:%n%s", tail(output))
                .isZero();
        assertThat(Files.readString(output)).contains("produced and consumed helm-test-");
    }

    @Test
    @Order(7)
    void prometheusWithTheComposeConfigScrapesEveryPodKeepsItsTagsAndEvaluatesTheAlerts() throws Exception {
        DebianTool.requireOnPath("prometheus", "prometheus");
        Path dir = Files.createDirectories(work.resolve("prometheus"));
        Files.copy(repoRoot.resolve("helm/tributary/files/alerts.yml"), dir.resolve("alerts.yml"));
        YAMLMapper yaml = new YAMLMapper();
        ObjectNode config = (ObjectNode) yaml.readTree(
                repoRoot.resolve("deploy/prometheus/prometheus.yml").toFile());
        ((ObjectNode) config.get("global")).put("scrape_interval", "1s").put("evaluation_interval", "1s");
        ArrayNode jobs = JSON.createArrayNode();
        Map<String, List<String>> podsByJob = new LinkedHashMap<>();
        for (JsonNode job : config.get("scrape_configs")) {
            String name = job.get("job_name").asString();
            if (!name.startsWith("tributary-")) {
                continue;
            }
            // The same job, metrics path and label handling; the targets are this test's pods.
            ArrayNode targets = JSON.createArrayNode();
            for (PodRun pod : pods) {
                if (name.equals("tributary-" + pod.component())) {
                    targets.add("127.0.0.1:" + pod.port("http"));
                    podsByJob.computeIfAbsent(name, k -> new ArrayList<>()).add(pod.name());
                }
            }
            ObjectNode local = ((ObjectNode) job).deepCopy();
            local.putArray("static_configs").addObject().set("targets", targets);
            jobs.add(local);
        }
        config.set("scrape_configs", jobs);
        yaml.writeValue(dir.resolve("prometheus.yml").toFile(), config);
        int port = freePort(new HashSet<>());
        prometheus = new ProcessBuilder(
                        "prometheus",
                        "--config.file=" + dir.resolve("prometheus.yml"),
                        "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true)
                .redirectOutput(logsDir.resolve("prometheus.log").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        log.info("prometheus pid {} on port {}", prometheus.pid(), port);

        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptionsInstanceOf(IOException.class)
                .untilAsserted(() -> {
                    assertThat(prometheus.isAlive()).as("prometheus is running").isTrue();
                    JsonNode up = query(port, "up");
                    assertThat(up.size()).as("targets: %s", up).isEqualTo(pods.size());
                    up.forEach(series -> assertThat(series.at("/value/1").asString())
                            .as(series.toString())
                            .isEqualTo("1"));
                    for (var job : podsByJob.entrySet()) {
                        List<String> instances = new ArrayList<>();
                        query(port, "process_uptime_seconds{job=\"" + job.getKey() + "\"}")
                                .forEach(series -> instances.add(
                                        series.at("/metric/instance").asString()));
                        assertThat(instances)
                                .as("job %s keeps the pods' own instance tags (honor_labels)", job.getKey())
                                .containsExactlyInAnyOrderElementsOf(job.getValue());
                    }
                    // The leader alert's metric exists and counts exactly one leader; the alert is quiet.
                    JsonNode leaders = query(port, "sum(tributary_metadata_raft_role{role=\"leader\"})");
                    assertThat(leaders.at("/0/value/1").asString())
                            .as("leaders: %s", leaders)
                            .isEqualTo("1");
                    assertThat(query(port, "ALERTS{alertname=\"TributaryCoordinatorWithoutLeader\"}"))
                            .isEmpty();
                    // The consumer-group panels' gauges exist from the start: each gateway, each coordinator.
                    assertThat(query(port, "tributary_gateway_group_streams"))
                            .as("tributary_gateway_group_streams")
                            .hasSize(podsByJob.get("tributary-gateway").size());
                    assertThat(query(port, "tributary_groups_in_memory"))
                            .as("tributary_groups_in_memory")
                            .hasSize(podsByJob.get("tributary-coordinator").size());
                    // Every rule of the alerts file is loaded and evaluates without error.
                    HttpResponse<String> rules = get(port, "/api/v1/rules");
                    List<String> healthy = new ArrayList<>();
                    JSON.readTree(rules.body())
                            .at("/data/groups")
                            .forEach(group -> group.get("rules").forEach(rule -> {
                                if (rule.get("health").asString().equals("ok")) {
                                    healthy.add(rule.get("name").asString());
                                }
                            }));
                    assertThat(healthy)
                            .as("alert rules evaluated without error")
                            .hasSize(9)
                            .contains("TributaryCoordinatorWithoutLeader", "TributaryOfflinePartitions");
                });
    }

    private static JsonNode query(int port, String promql) throws IOException, InterruptedException {
        String encoded = java.net.URLEncoder.encode(promql, java.nio.charset.StandardCharsets.UTF_8);
        HttpResponse<String> response = get(port, "/api/v1/query?query=" + encoded);
        assertThat(response.statusCode()).as(promql + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).at("/data/result");
    }

    // ---- the pods of the manifests ------------------------------------------------------------

    record PlannedPod(String name, String component, int ordinal, PodTemplateSpec template, Container container) {}

    /** StatefulSet pods are <name>-<ordinal>; a Deployment's pods get the ordinal too, for a name. */
    private static List<PlannedPod> plan(List<HasMetadata> resources) {
        List<PlannedPod> planned = new ArrayList<>();
        for (HasMetadata resource : resources) {
            int replicas;
            PodTemplateSpec template;
            if (resource instanceof StatefulSet statefulSet) {
                replicas = statefulSet.getSpec().getReplicas();
                template = statefulSet.getSpec().getTemplate();
            } else if (resource instanceof Deployment deployment) {
                replicas = deployment.getSpec().getReplicas();
                template = deployment.getSpec().getTemplate();
            } else {
                continue;
            }
            assertThat(template.getSpec().getContainers())
                    .as(HelmChart.describe(resource))
                    .hasSize(1);
            String component = template.getMetadata().getLabels().get("app.kubernetes.io/component");
            for (int i = 0; i < replicas; i++) {
                planned.add(new PlannedPod(
                        resource.getMetadata().getName() + "-" + i,
                        component,
                        i,
                        template,
                        template.getSpec().getContainers().getFirst()));
            }
        }
        return planned;
    }

    private static PodRun start(
            PlannedPod pod, List<HasMetadata> resources, Image image, Map<String, Map<Integer, Integer>> portsByPod)
            throws IOException {
        Path podDir = Files.createDirectories(work.resolve(pod.name()));
        Map<Integer, Integer> ownPorts = portsByPod.get(pod.name());
        Map<String, Integer> localPorts = new LinkedHashMap<>();
        for (ContainerPort port : pod.container().getPorts()) {
            localPorts.put(port.getName(), ownPorts.get(port.getContainerPort()));
        }

        // Volumes: each mount is a directory of its own; a ConfigMap's keys are files in it. /tmp
        // stays the host's /tmp.
        Map<String, Path> mountsByPath = new LinkedHashMap<>();
        Map<String, Path> mountsByVolume = new LinkedHashMap<>();
        for (VolumeMount mount : pod.container().getVolumeMounts()) {
            if (mount.getMountPath().equals("/tmp")) {
                continue;
            }
            Path dir = Files.createDirectories(podDir.resolve("volume-" + mount.getName()));
            mountsByPath.put(mount.getMountPath(), dir);
            mountsByVolume.put(mount.getName(), dir);
            Optional<Volume> volume = pod.template().getSpec().getVolumes().stream()
                    .filter(v -> v.getName().equals(mount.getName()))
                    .findFirst();
            if (volume.isPresent() && volume.get().getConfigMap() != null) {
                ConfigMap config = HelmChart.named(
                        resources, ConfigMap.class, volume.get().getConfigMap().getName());
                for (var entry : config.getData().entrySet()) {
                    Files.writeString(dir.resolve(entry.getKey()), entry.getValue());
                }
            }
            // A Secret's items, or a projected volume's Secrets' items: each key's decoded value as the
            // file at its path. Only Secrets the manifests render can be run here.
            if (volume.isPresent() && volume.get().getSecret() != null) {
                writeSecretItems(
                        resources,
                        volume.get().getSecret().getSecretName(),
                        volume.get().getSecret().getItems(),
                        dir);
            }
            if (volume.isPresent() && volume.get().getProjected() != null) {
                for (var source : volume.get().getProjected().getSources()) {
                    assertThat(source.getSecret())
                            .as(pod.name() + " projected volume " + mount.getName() + ": Secrets only")
                            .isNotNull();
                    writeSecretItems(
                            resources,
                            source.getSecret().getName(),
                            source.getSecret().getItems(),
                            dir);
                }
            }
        }

        // The container's environment: the image's ENV, then the manifest's env (which wins).
        Map<String, String> labels =
                new LinkedHashMap<>(pod.template().getMetadata().getLabels());
        labels.put("apps.kubernetes.io/pod-index", Integer.toString(pod.ordinal()));
        labels.put("statefulset.kubernetes.io/pod-name", pod.name());
        Map<String, String> env = new LinkedHashMap<>(image.env());
        for (EnvVar var : pod.container().getEnv()) {
            env.put(var.getName(), expand(resolve(var, pod, labels), env));
        }
        Map<String, String> local = new LinkedHashMap<>();
        env.forEach((key, value) -> local.put(key, localize(key, value, pod, ownPorts, portsByPod, mountsByPath)));

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String word : image.entrypoint().subList(1, image.entrypoint().size())) {
            command.add(
                    word.equals(Image.APPLICATION_JAR) ? jarOf(pod.container().getImage()) : word);
        }
        Optional.ofNullable(pod.container().getArgs()).ifPresent(command::addAll);
        Path logFile = logsDir.resolve(pod.name() + ".log");
        var builder = new ProcessBuilder(command)
                .directory(podDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().clear();
        builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        builder.environment().put("HOME", podDir.toString());
        builder.environment().putAll(local);
        Process process = builder.start();
        log.info("{} pid {}: {} with {}", pod.name(), process.pid(), command, local);
        return new PodRun(
                pod.name(), pod.component(), pod.container(), localPorts, local, mountsByVolume, logFile, process);
    }

    private static void writeSecretItems(
            List<HasMetadata> resources, String secretName, List<KeyToPath> items, Path dir) throws IOException {
        Secret secret = HelmChart.named(resources, Secret.class, secretName);
        for (KeyToPath item : items) {
            String data = secret.getData().get(item.getKey());
            assertThat(data).as("Secret %s key %s", secretName, item.getKey()).isNotNull();
            Path file = dir.resolve(item.getPath());
            Files.write(file, Base64.getDecoder().decode(data));
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r-----"));
        }
    }

    /**
     * Kubernetes' dependent environment variables: {@code $(NAME)} becomes the value of a variable
     * defined before it, {@code $$} escapes a {@code $}, and an unknown reference stays as written.
     */
    private static String expand(String value, Map<String, String> defined) {
        Matcher reference =
                Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_.-]*)\\)").matcher(value);
        StringBuilder expanded = new StringBuilder();
        while (reference.find()) {
            String replacement;
            if (reference.group(1) == null) {
                replacement = "$";
            } else {
                replacement = defined.getOrDefault(reference.group(1), reference.group());
            }
            reference.appendReplacement(expanded, Matcher.quoteReplacement(replacement));
        }
        reference.appendTail(expanded);
        return expanded.toString();
    }

    /** The value the kubelet gives an env var: literal, or the downward API's pod fields. */
    private static String resolve(EnvVar var, PlannedPod pod, Map<String, String> labels) {
        if (var.getValueFrom() == null) {
            return var.getValue() == null ? "" : var.getValue();
        }
        assertThat(var.getValueFrom().getFieldRef())
                .as(pod.name() + " env " + var.getName() + ": only fieldRef is supported here")
                .isNotNull();
        String field = var.getValueFrom().getFieldRef().getFieldPath();
        if (field.equals("metadata.name")) {
            return pod.name();
        }
        if (field.equals("metadata.namespace")) {
            return HelmChart.NAMESPACE;
        }
        if (field.equals("status.podIP")) {
            return "127.0.0.1";
        }
        Matcher label = Pattern.compile("metadata\\.labels\\['(.+)'\\]").matcher(field);
        assertThat(label.matches())
                .as(pod.name() + " env " + var.getName() + " fieldRef " + field)
                .isTrue();
        // A label the pod lacks (e.g. no zone label on this node) resolves to the empty string.
        return labels.getOrDefault(label.group(1), "");
    }

    /**
     * The only changes from the container: pod DNS names to 127.0.0.1 with that pod's local port,
     * this pod's container ports to its local ports, 0.0.0.0 to 127.0.0.1, mount paths to the
     * mapped directories. Anything still naming a cluster address fails the test.
     */
    private static String localize(
            String key,
            String value,
            PlannedPod pod,
            Map<Integer, Integer> ownPorts,
            Map<String, Map<Integer, Integer>> portsByPod,
            Map<String, Path> mounts) {
        String result = value;
        Matcher address = POD_ADDRESS.matcher(result);
        StringBuilder rewritten = new StringBuilder();
        while (address.find()) {
            String target = address.group(1);
            int port = Integer.parseInt(address.group(3));
            Map<Integer, Integer> targetPorts = portsByPod.get(target);
            assertThat(targetPorts)
                    .as("%s env %s names pod %s, which the manifests do not run", pod.name(), key, target)
                    .isNotNull();
            assertThat(targetPorts)
                    .as("%s env %s names port %d of %s, which it does not declare", pod.name(), key, port, target)
                    .containsKey(port);
            address.appendReplacement(rewritten, "127.0.0.1:" + targetPorts.get(port));
        }
        address.appendTail(rewritten);
        result = rewritten.toString();
        Matcher host = POD_HOST.matcher(result);
        if (host.matches()) {
            assertThat(portsByPod)
                    .as("%s env %s names pod %s, which the manifests do not run", pod.name(), key, host.group(1))
                    .containsKey(host.group(1));
            result = "127.0.0.1";
        }
        assertThat(result)
                .as("%s env %s=%s still names a cluster address", pod.name(), key, result)
                .doesNotContain(".svc.");
        if (key.endsWith("_PORT")) {
            int port = Integer.parseInt(result);
            assertThat(ownPorts)
                    .as("%s env %s=%s is not one of its containerPorts", pod.name(), key, result)
                    .containsKey(port);
            result = Integer.toString(ownPorts.get(port));
        }
        if (result.equals("0.0.0.0")) {
            result = "127.0.0.1";
        }
        // A listener bound on every interface at a container port (NAME://0.0.0.0:port).
        Matcher listener = Pattern.compile("://0\\.0\\.0\\.0:(\\d+)").matcher(result);
        StringBuilder bound = new StringBuilder();
        while (listener.find()) {
            int port = Integer.parseInt(listener.group(1));
            assertThat(ownPorts)
                    .as("%s env %s=%s binds a port that is not one of its containerPorts", pod.name(), key, result)
                    .containsKey(port);
            listener.appendReplacement(bound, "://127.0.0.1:" + ownPorts.get(port));
        }
        listener.appendTail(bound);
        result = bound.toString();
        // A URL of this pod's own IP (status.podIP, 127.0.0.1 here) names its container port.
        Matcher ownUrl =
                Pattern.compile("^(https?://127\\.0\\.0\\.1:)(\\d+)(/.*)?$").matcher(result);
        if (ownUrl.matches() && ownPorts.containsKey(Integer.parseInt(ownUrl.group(2)))) {
            result = ownUrl.group(1)
                    + ownPorts.get(Integer.parseInt(ownUrl.group(2)))
                    + Optional.ofNullable(ownUrl.group(3)).orElse("");
        }
        for (var mount : mounts.entrySet().stream()
                .sorted(Comparator.comparing(
                                (Map.Entry<String, Path> e) -> e.getKey().length())
                        .reversed())
                .toList()) {
            String path = mount.getKey();
            if (result.equals(path) || result.startsWith(path + "/") || result.contains(":" + path + "/")) {
                result = result.replace(path, mount.getValue().toString());
            }
        }
        return result;
    }

    /** The jar the image of this repository packages: tributary/broker -> broker-service/target/tributary-broker.jar. */
    private static String jarOf(String image) {
        Matcher matcher = Pattern.compile("tributary/([a-z]+):.+").matcher(image);
        assertThat(matcher.matches()).as("image " + image).isTrue();
        String service = matcher.group(1);
        Path jar = repoRoot.resolve(service + "-service/target/tributary-" + service + ".jar");
        assertThat(jar)
                .as("the %s jar, packaged earlier in the reactor (./mvnw verify)", service)
                .isRegularFile();
        return jar.toString();
    }

    // ---- the image ----------------------------------------------------------------------------

    /** What the Dockerfile's runtime stage gives every container: ENTRYPOINT and ENV. */
    record Image(List<String> entrypoint, Map<String, String> env) {

        static final String APPLICATION_JAR = "/app/application.jar";

        static Image fromDockerfile(Path dockerfile) throws IOException {
            // Instructions, with continuation lines joined; only the last stage (after the last FROM).
            List<String> instructions = new ArrayList<>();
            StringBuilder current = new StringBuilder();
            for (String line : Files.readAllLines(dockerfile)) {
                if (line.isBlank() || line.stripLeading().startsWith("#")) {
                    continue;
                }
                if (line.endsWith("\\")) {
                    current.append(line, 0, line.length() - 1).append(' ');
                } else {
                    current.append(line);
                    instructions.add(current.toString().strip());
                    current.setLength(0);
                }
            }
            int lastFrom = 0;
            for (int i = 0; i < instructions.size(); i++) {
                if (instructions.get(i).startsWith("FROM ")) {
                    lastFrom = i;
                }
            }
            List<String> entrypoint = null;
            Map<String, String> env = new LinkedHashMap<>();
            for (String instruction : instructions.subList(lastFrom, instructions.size())) {
                if (instruction.startsWith("ENTRYPOINT ")) {
                    entrypoint = List.of(JSON.readValue(instruction.substring("ENTRYPOINT ".length()), String[].class));
                } else if (instruction.startsWith("ENV ")) {
                    Matcher pair =
                            Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\\S+)").matcher(instruction.substring(4));
                    while (pair.find()) {
                        env.put(pair.group(1), pair.group(2));
                    }
                }
            }
            assertThat(entrypoint)
                    .as("the runtime stage's exec-form ENTRYPOINT")
                    .isNotNull();
            assertThat(entrypoint.getFirst()).isEqualTo("java");
            assertThat(entrypoint).contains(APPLICATION_JAR);
            return new Image(entrypoint, env);
        }
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static int freePort(Set<Integer> taken) {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (var socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                int port = socket.getLocalPort();
                if (taken.add(port)) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no free port in 100 attempts");
    }

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
