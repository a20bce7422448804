package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.systemtests.DebianTool.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The deployment files outside the chart, checked by the real tools: {@code docker-compose.yml} by
 * Debian's docker-compose 1.29 ({@code config -q}), the Prometheus configuration and the alert
 * rules by promtool ({@code check config}, {@code check rules}, {@code test rules}), and the
 * dashboard's queries by promtool as well. Each tool is a Debian package that {@code bin/test}
 * installs; a missing tool fails the test with the package to install.
 */
class DeployFilesTest {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final JsonMapper JSON = new JsonMapper();
    private static final List<String> TRIBUTARY_SERVICES =
            List.of("coordinator-0", "broker-0", "broker-1", "broker-2", "gateway-0");

    @TempDir
    Path work;

    private final Path root = HelmChart.repoRoot();

    @Test
    void dockerComposeFileIsValidForComposeV1() {
        Result result = run("docker-compose", "docker-compose", "-f", "docker-compose.yml", "config", "-q");

        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @Test
    void dockerComposeRejectsAnUnknownKeySoTheCheckAbove() throws IOException {
        Path broken = work.resolve("docker-compose.yml");
        Files.writeString(
                broken,
                Files.readString(root.resolve("docker-compose.yml"))
                        .replace("    hostname: gateway-0\n", "    hostname: gateway-0\n    portz: [\"1:1\"]\n"));

        Result result = run("docker-compose", "docker-compose", "-f", broken.toString(), "config", "-q");

        assertThat(result.exitCode()).as(result.output()).isNotZero();
        assertThat(result.output()).contains("portz");
    }

    @Test
    void dockerComposeRunsTheClusterWithHealthChecksVolumesAndTheSharedMonitoringFiles() throws IOException {
        Result result = run("docker-compose", "docker-compose", "-f", "docker-compose.yml", "config");
        assertThat(result.exitCode()).as(result.output()).isZero();
        JsonNode config = YAML.readTree(result.output());
        JsonNode services = config.get("services");

        assertThat(names(services))
                .containsExactlyInAnyOrder(
                        "coordinator-0", "broker-0", "broker-1", "broker-2", "gateway-0", "prometheus", "grafana");
        for (String name : TRIBUTARY_SERVICES) {
            JsonNode service = services.get(name);
            assertThat(service.at("/healthcheck/test").toString())
                    .as(name)
                    .contains(
                            "/actuator/health/readiness",
                            service.at("/environment/SERVER_PORT").asString());
            assertThat(service.at("/read_only").asBoolean()).as(name).isTrue();
            assertThat(service.at("/environment/TRIBUTARY_INSTANCE").asString()).isEqualTo(name);
            assertThat(service.at("/build/args/SERVICE").asString())
                    .as(name)
                    .isEqualTo(name.substring(0, name.indexOf('-')));
        }
        for (String name : List.of("coordinator-0", "broker-0", "broker-1", "broker-2")) {
            assertThat(services.get(name).get("volumes").toString())
                    .as(name + " keeps its data in a named volume")
                    .contains(name + "-data", "/var/lib/tributary");
        }
        assertThat(services.at("/gateway-0/environment/TRIBUTARY_GATEWAY_BOOTSTRAP_SERVERS")
                        .asString())
                .isEqualTo("broker-0:9092,broker-1:9092,broker-2:9092");
        assertThat(services.at("/broker-2/environment/TRIBUTARY_BROKER_ID").asString())
                .isEqualTo("2");
        assertThat(services.get("prometheus").get("volumes").toString())
                .contains("helm/tributary/files/alerts.yml", "deploy/prometheus/prometheus.yml");
        assertThat(services.get("grafana").get("volumes").toString())
                .contains("helm/tributary/files/dashboards", "deploy/grafana/provisioning");
        assertThat(names(config.get("volumes")))
                .contains("coordinator-0-data", "broker-0-data", "prometheus-data", "grafana-data");
    }

    /**
     * Compose configures the services with the chart's environment variables, which HelmManifestsIT
     * proves bind on the real services: a name here that the chart does not set would be ignored.
     */
    @Test
    void composeSetsOnlyVariablesTheChartSetsAndTheGroupEssentials() throws IOException {
        Result result = run("docker-compose", "docker-compose", "-f", "docker-compose.yml", "config");
        assertThat(result.exitCode()).as(result.output()).isZero();
        JsonNode services = YAML.readTree(result.output()).get("services");
        // The chart with its optional external listener on: compose opens it for clients on the host.
        // Compose runs the plain local cluster, as the chart without its Kafka-side security.
        var manifests = HelmChart.render(
                java.util.Optional.empty(),
                Map.of(
                        "security.enabled",
                        false,
                        "broker.external.enabled",
                        true,
                        "broker.external.advertisedHost",
                        "nodes.example.com"));

        for (String name : TRIBUTARY_SERVICES) {
            String component = name.substring(0, name.indexOf('-'));
            var workload = manifests.stream()
                    .filter(r -> r.getMetadata().getName().equals("demo-tributary-" + component))
                    .flatMap(r -> HelmChart.podTemplate(r).stream())
                    .findFirst()
                    .orElseThrow();
            List<String> chartEnv = workload.getSpec().getContainers().getFirst().getEnv().stream()
                    .map(io.fabric8.kubernetes.api.model.EnvVar::getName)
                    .toList();
            assertThat(names(services.get(name).get("environment")))
                    .as("%s sets only variables the chart's %s sets", name, component)
                    .isSubsetOf(chartEnv);
        }
        assertThat(services.at("/gateway-0/environment/TRIBUTARY_GATEWAY_GROUPS_ADVERTISED_URL")
                        .asString())
                .as("the gateway's own URL on the compose network")
                .isEqualTo("http://gateway-0:"
                        + services.at("/gateway-0/environment/SERVER_PORT").asString());
        assertThat(services.at("/coordinator-0/environment/TRIBUTARY_COORDINATOR_GROUPS_SESSION_TIMEOUT")
                        .asString())
                .isEqualTo("45s");
        for (String broker : List.of("broker-0", "broker-1", "broker-2")) {
            assertThat(services.at("/" + broker + "/environment/TRIBUTARY_BROKER_CLUSTER_CONTROLLED_SHUTDOWN_TIMEOUT")
                            .asString())
                    .isEqualTo("5s");
            assertThat(services.at("/" + broker + "/stop_grace_period").asString())
                    .as(
                            "%s: 20 s graceful phase + 5 s controlled shutdown + 10 s listener shutdown + 10 s flush",
                            broker)
                    .isEqualTo("60s");
            int id = Integer.parseInt(broker.substring("broker-".length()));
            assertThat(services.at("/" + broker
                                    + "/environment/TRIBUTARY_BROKER_EXTERNAL_LISTENER_ADVERTISED_ADDRESSES")
                            .asString()
                            .split(",")[id])
                    .as("%s advertises its external listener where the host reaches it", broker)
                    .isEqualTo("127.0.0.1:" + (19092 + id));
            assertThat(services.at("/" + broker + "/ports").toString())
                    .as("%s publishes its external listener", broker)
                    .contains("19092")
                    .contains(Integer.toString(19092 + id));
        }
    }

    @Test
    void prometheusScrapesEveryComposeServiceOnItsActuator() throws IOException {
        JsonNode prometheus =
                YAML.readTree(root.resolve("deploy/prometheus/prometheus.yml").toFile());
        JsonNode compose = YAML.readTree(root.resolve("docker-compose.yml").toFile());
        List<String> targets = new ArrayList<>();
        for (JsonNode job : prometheus.get("scrape_configs")) {
            if (job.get("job_name").asString().startsWith("tributary-")) {
                assertThat(job.get("metrics_path").asString()).isEqualTo("/actuator/prometheus");
                job.at("/static_configs/0/targets").forEach(t -> targets.add(t.asString()));
            }
        }

        List<String> expected = new ArrayList<>();
        for (String name : TRIBUTARY_SERVICES) {
            expected.add(name + ":"
                    + compose.at("/services/" + name + "/environment/SERVER_PORT")
                            .asString());
        }
        assertThat(targets).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void prometheusConfigPassesPromtool() {
        Result result = run("promtool", "prometheus", "check", "config", "deploy/prometheus/prometheus.yml");

        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS");
    }

    @Test
    void alertRulesPassPromtool() {
        Result result = run("promtool", "prometheus", "check", "rules", "helm/tributary/files/alerts.yml");

        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS: 9 rules found");
    }

    /** The unit tests load deploy/prometheus/alerts.yml: it must be the chart's file, byte for byte. */
    @Test
    void theUnitTestedAlertsAreTheChartsAlerts() throws IOException {
        assertThat(Files.readString(root.resolve("deploy/prometheus/alerts.yml")))
                .as("deploy/prometheus/alerts.yml is a copy of helm/tributary/files/alerts.yml")
                .isEqualTo(Files.readString(root.resolve("helm/tributary/files/alerts.yml")));
    }

    @Test
    void alertRulesPassTheirUnitTests() {
        Result result = run("promtool", "prometheus", "test", "rules", "deploy/prometheus/alerts-test.yml");

        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS");
    }

    @Test
    void aWrongAlertExpectationFailsPromtoolSoTheUnitTestsCanFail() throws IOException {
        Files.copy(root.resolve("helm/tributary/files/alerts.yml"), work.resolve("alerts.yml"));
        Path test = work.resolve("alerts-test.yml");
        String original = Files.readString(root.resolve("deploy/prometheus/alerts-test.yml"));
        String changed = original.replace(
                "summary: \"2 Tributary partitions are offline\"", "summary: \"3 Tributary partitions are offline\"");
        assertThat(changed).isNotEqualTo(original);
        Files.writeString(test, changed);

        Result result = run("promtool", "prometheus", "test", "rules", test.toString());

        assertThat(result.exitCode()).as(result.output()).isNotZero();
        assertThat(result.output()).contains("TributaryOfflinePartitions");
    }

    @Test
    void everyAlertHasAUnitTest() throws IOException {
        JsonNode alerts =
                YAML.readTree(root.resolve("helm/tributary/files/alerts.yml").toFile());
        String tests = Files.readString(root.resolve("deploy/prometheus/alerts-test.yml"));

        for (JsonNode group : alerts.get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                String alert = rule.get("alert").asString();
                assertThat(tests).as("a promtool test case for " + alert).contains("alertname: " + alert + "\n");
            }
        }
    }

    @Test
    void everyDashboardQueryIsValidPromql() throws IOException {
        JsonNode dashboard = JSON.readTree(
                root.resolve("helm/tributary/files/dashboards/tributary.json").toFile());
        Map<String, Object> rules = new TreeMap<>();
        List<Map<String, String>> records = new ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.get("expr")
                        .asString()
                        .replace("$__rate_interval", "5m")
                        .replace("$job", "tributary-.*")
                        .replace("$instance", ".*");
                records.add(
                        Map.of("record", "dashboard:panel_" + panel.get("id").asInt(), "expr", expr));
            }
        }
        assertThat(records).hasSizeGreaterThan(10);
        rules.put("groups", List.of(Map.of("name", "dashboard", "rules", records)));
        Path file = work.resolve("dashboard-queries.yml");
        YAML.writeValue(file.toFile(), rules);

        Result result = run("promtool", "prometheus", "check", "rules", file.toString());

        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(dashboard.get("uid").asString()).isEqualTo("tributary-overview");
    }

    @Test
    void aMissingToolFailsNamingTheDebianPackageToInstall() {
        assertThatThrownBy(() -> DebianTool.requireOnPath("tributary-no-such-tool", "tributary-no-such-package"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("tributary-no-such-tool is not installed")
                .hasMessageContaining("apt-get install -y --no-install-recommends tributary-no-such-package");
    }

    @Test
    void theDockerfileCopiesOnlyWhatTheBuildContextHasAndRunsAsTheChartsUser() throws IOException {
        List<String> lines = Files.readAllLines(root.resolve("Dockerfile"));
        String dockerignore = Files.readString(root.resolve(".dockerignore"));
        Pattern copy = Pattern.compile("^COPY (?!--from)(.+) (\\S+)$");
        int copies = 0;
        for (String line : lines) {
            Matcher matcher = copy.matcher(line.strip());
            if (!matcher.matches()) {
                continue;
            }
            for (String source : matcher.group(1).trim().split("\\s+")) {
                copies++;
                assertThat(root.resolve(source)).as("COPY source " + source).exists();
                String top = source.replaceAll("/.*", "");
                assertThat(dockerignore.lines().map(String::strip))
                        .as("COPY source %s is excluded by .dockerignore", source)
                        .doesNotContain(top + "/", top);
            }
        }
        assertThat(copies).isGreaterThan(5);
        // Maven needs every module's POM to load the reactor, even to build one service.
        Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(root.resolve("pom.xml")));
        while (module.find()) {
            String name = module.group(1);
            assertThat(lines)
                    .as("the Dockerfile copies the POM of module %s (the reactor needs all of them)", name)
                    .contains("COPY " + name + "/pom.xml " + name + "/");
        }
        assertThat(dockerignore).contains("**/target/", ".git/");
        JsonNode values =
                YAML.readTree(root.resolve("helm/tributary/values.yaml").toFile());
        String uid = values.at("/podSecurityContext/runAsUser").asString();
        String gid = values.at("/podSecurityContext/runAsGroup").asString();
        assertThat(lines).contains("USER " + uid + ":" + gid);
        assertThat(String.join("\n", lines))
                .contains("--uid " + uid, "--gid " + gid, "chown tributary:tributary /var/lib/tributary")
                .contains("FROM ${JRE_IMAGE} AS runtime", "ARG JRE_IMAGE=eclipse-temurin:25-jre")
                .contains("extract --layers");
    }

    // ---- running tools ----------------------------------------------------------------------

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.properties().forEach(e -> names.add(e.getKey()));
        return names;
    }

    /** Runs a command from the repository root; fails clearly when the command is not installed. */
    private Result run(String command, String debianPackage, String... args) {
        List<String> line = new ArrayList<>(List.of(command));
        line.addAll(List.of(args));
        return DebianTool.run(root, work, debianPackage, line);
    }
}
