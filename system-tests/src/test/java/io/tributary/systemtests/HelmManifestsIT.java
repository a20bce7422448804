package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.ControlPlaneSignature;
import io.tributary.systemtests.ManifestPods.PodRun;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import org.junit.jupiter.api.parallel.ResourceLock;
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
// Each runs a whole rendered cluster (up to six JVMs): never the two at once on a shared machine.
@ResourceLock(ManifestPods.LOCK)
class HelmManifestsIT {

    private static final Logger log = LoggerFactory.getLogger(HelmManifestsIT.class);
    private static final JsonMapper JSON = new JsonMapper();
    /** Six JVMs starting on two cores beside other builds (load 30) took over 3 minutes in one run. */
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(5);

    private static final Map<String, Object> VALUES = ManifestPods.withTestJvms(Map.ofEntries(
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
            // Secured: its default, SASL_SSL, needs a TLS source this render has not (HelmTlsIT's has).
            Map.entry("broker.external.securityProtocol", "SASL_PLAINTEXT"),
            Map.entry("broker.external.advertisedHost", "nodes.example.com"),
            Map.entry("broker.external.maxConnections", 77),
            Map.entry("gateway.groups.maxStreams", 50),
            Map.entry("gateway.groups.sessionTimeout", "20s"),
            Map.entry("gateway.groups.heartbeatInterval", "2s")));

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

    @BeforeAll
    static void renderAndStartEveryPod() throws IOException {
        repoRoot = HelmChart.repoRoot();
        logsDir = ManifestPods.logsDir("helm-manifests-it-logs");
        Runtime.getRuntime().addShutdownHook(new Thread(HelmManifestsIT::stopAll, "helm-manifests-it-stopper"));

        List<HasMetadata> resources = HelmChart.render(Optional.empty(), VALUES);
        rendered = resources;
        pods.addAll(ManifestPods.start(resources, work, logsDir, repoRoot));
    }

    @AfterAll
    static void stopAll() {
        Process scraper = prometheus;
        if (scraper != null) {
            ProcessHandle.of(scraper.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
        ManifestPods.stop(pods);
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
        ManifestPods.awaitReady(pods, READY_TIMEOUT, http);
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
            assertThat(pod.env()).containsEntry("JDK_JAVA_OPTIONS", ManifestPods.TEST_JVM_OPTIONS);
            assertThat(Files.readString(pod.log()))
                    .as(pod.name() + " log")
                    .contains("Picked up JDK_JAVA_OPTIONS: " + ManifestPods.TEST_JVM_OPTIONS)
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
     * with the admin password the chart generated (both SCRAM mechanisms); a wrong password (there
     * and on the external listener, SASL_PLAINTEXT here) and a client that does not log in get
     * nowhere; a user the admin creates is refused until an ACL
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
        // The external listener asks for the same logins (its advertised nodes.example.com is not
        // reachable here, so only the login on the bootstrap connection is checked).
        String external = pods.stream()
                .filter(p -> p.component().equals("broker"))
                .map(p -> "127.0.0.1:" + p.port("external"))
                .findFirst()
                .orElseThrow();
        try (Admin wrong = Admin.create(kafkaLogin(external, "admin", password + "x", "SCRAM-SHA-512"))) {
            assertThatThrownBy(() -> wrong.listTopics().names().get(30, TimeUnit.SECONDS))
                    .as("a wrong password on the external listener")
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
                    .as("the helm test script finished; output so far:%n%s", ManifestPods.tail(output))
                    .isTrue();
        } finally {
            ProcessHandle.of(run.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
        assertThat(run.exitValue())
                .as("the helm test script's exit code; its output:%n%s", ManifestPods.tail(output))
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
        int port = ManifestPods.freePort(new HashSet<>());
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

    // ---- helpers ------------------------------------------------------------------------------

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
