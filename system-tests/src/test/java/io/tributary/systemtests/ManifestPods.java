package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
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
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs the pods of rendered manifests as local processes, exactly as their containers would run:
 * the Dockerfile's ENTRYPOINT and ENV, then each container's environment from the manifest with the
 * downward API resolved (pod name, pod-index label, pod IP), ConfigMaps and Secrets (their items,
 * decoded, mode 0440) written where they are mounted, volumes mapped to temporary directories, and
 * only these substitutions: per-pod DNS names become 127.0.0.1, bind addresses 0.0.0.0 become
 * 127.0.0.1, and each container port becomes a free local port. Used by {@link HelmManifestsIT}
 * (the default render) and {@link HelmTlsIT} (TLS and HTTPS coordinators).
 */
final class ManifestPods {

    private static final Logger log = LoggerFactory.getLogger(ManifestPods.class);
    private static final JsonMapper JSON = new JsonMapper();

    /** host:port of a pod behind a headless Service: <pod>.<service>.<namespace>.svc.<domain>:<port>. */
    private static final Pattern POD_ADDRESS =
            Pattern.compile("([a-z0-9-]+)\\.([a-z0-9-]+)\\." + HelmChart.NAMESPACE + "\\.svc\\.cluster\\.local:(\\d+)");

    /** A pod's DNS name alone (an advertised host): <pod>.<service>.<namespace>.svc.<domain>. */
    private static final Pattern POD_HOST =
            Pattern.compile("([a-z0-9-]+)\\.([a-z0-9-]+)\\." + HelmChart.NAMESPACE + "\\.svc\\.cluster\\.local");

    /** JVM options for several JVMs sharing a CI machine: quick start, small heaps (through the chart's jvmOptions). */
    static final String TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m";

    /** The chart values that give every component {@link #TEST_JVM_OPTIONS}. */
    static final Map<String, Object> TEST_JVMS = Map.of(
            "coordinator.jvmOptions", TEST_JVM_OPTIONS,
            "broker.jvmOptions", TEST_JVM_OPTIONS,
            "gateway.jvmOptions", TEST_JVM_OPTIONS);

    /** The resource lock of the test classes that run rendered clusters, one at a time. */
    static final String LOCK = "helm-manifest-pods";

    private ManifestPods() {}

    /** An emptied directory for the pods' logs under the build directory: target/NAME. */
    static Path logsDir(String name) throws IOException {
        Path logsDir = Path.of(System.getProperty("tributary.build.dir", "target"))
                .toAbsolutePath()
                .resolve(name);
        Files.createDirectories(logsDir);
        try (var old = Files.list(logsDir)) {
            for (Path file : old.toList()) {
                Files.delete(file);
            }
        }
        return logsDir;
    }

    /** {@code values} with {@link #TEST_JVMS} added. */
    static Map<String, Object> withTestJvms(Map<String, Object> values) {
        Map<String, Object> all = new LinkedHashMap<>(TEST_JVMS);
        all.putAll(values);
        return all;
    }

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

    /** Starts one process per pod of every StatefulSet and Deployment of {@code resources}. */
    static List<PodRun> start(List<HasMetadata> resources, Path work, Path logsDir, Path repoRoot) throws IOException {
        List<PodRun> pods = new ArrayList<>();
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
            pods.add(startPod(pod, resources, image, portsByPod, work, logsDir, repoRoot));
        }
        return pods;
    }

    /**
     * Waits until every pod is alive and answers 200 on its readiness probe, over the probe's scheme
     * (HTTPS with {@code client}'s trust), failing with the log of a pod that exited.
     */
    static void awaitReady(List<PodRun> pods, Duration timeout, HttpClient client) {
        await().atMost(timeout)
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptionsInstanceOf(IOException.class)
                .untilAsserted(() -> {
                    for (PodRun pod : pods) {
                        assertThat(pod.process().isAlive())
                                .as("%s exited; its log is %s:%n%s", pod.name(), pod.log(), tail(pod.log()))
                                .isTrue();
                        var probe = pod.container().getReadinessProbe().getHttpGet();
                        String scheme = Optional.ofNullable(probe.getScheme())
                                .orElse("HTTP")
                                .toLowerCase(Locale.ROOT);
                        URI uri = URI.create(scheme + "://127.0.0.1:"
                                + pod.port(probe.getPort().getStrVal()) + probe.getPath());
                        HttpResponse<String> ready = client.send(
                                HttpRequest.newBuilder(uri)
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        assertThat(ready.statusCode())
                                .as(pod.name() + " " + uri)
                                .isEqualTo(200);
                    }
                });
    }

    /** Stops every pod by PID: SIGTERM, then SIGKILL after 30 s. */
    static void stop(List<PodRun> pods) {
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

    private static PodRun startPod(
            PlannedPod pod,
            List<HasMetadata> resources,
            Image image,
            Map<String, Map<Integer, Integer>> portsByPod,
            Path work,
            Path logsDir,
            Path repoRoot)
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
                    word.equals(Image.APPLICATION_JAR) ? jarOf(pod.container().getImage(), repoRoot) : word);
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
    private static String jarOf(String image, Path repoRoot) {
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

    static int freePort(Set<Integer> taken) {
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

    /** The last 40 lines of a log. */
    static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
