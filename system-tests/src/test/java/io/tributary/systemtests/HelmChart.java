package io.tributary.systemtests;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The Helm chart under {@code helm/tributary}, rendered through helm-java (Helm embedded as a native
 * library, no cluster) and parsed strictly into fabric8's Kubernetes model.
 *
 * <p>fabric8 throws on a value of the wrong type but keeps an unknown field in {@code
 * getAdditionalProperties()}; {@link #unknownFields} walks the parsed object graph and reports every
 * such field with its path, so a misspelled key ({@code contaners}, {@code serviceNme}) fails a test
 * instead of being dropped by the API server.
 */
final class HelmChart {

    static final String RELEASE = "demo";
    static final String NAMESPACE = "streaming";
    /** The Kubernetes version templates render for; the chart needs 1.28+ (the pod-index label). */
    static final String KUBE_VERSION = "1.32.0";

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private HelmChart() {}

    /** The repository root: system property {@code tributary.repo.root}, else the module's parent. */
    static Path repoRoot() {
        return Path.of(System.getProperty("tributary.repo.root", ".."))
                .toAbsolutePath()
                .normalize();
    }

    static Path chartDir() {
        Path chart = repoRoot().resolve("helm/tributary");
        if (!Files.isRegularFile(chart.resolve("Chart.yaml"))) {
            throw new IllegalStateException("no Helm chart at " + chart + " (system property tributary.repo.root)");
        }
        return chart;
    }

    static Helm helm() {
        return new Helm(chartDir());
    }

    /**
     * {@code helm template demo helm/tributary -n streaming [-f file] [--set k=v ...]}, rendered as
     * the Helm CLI renders it without a cluster: helm-java's template calls {@code lookup} against a
     * cluster (and fails without one), so the chart's one {@code lookup} is answered with the empty
     * dict the CLI's {@code helm template} gives (see {@link #NO_CLUSTER}).
     */
    static String template(Optional<Path> valuesFile, Map<String, Object> sets) {
        return templateCopy((file, text) -> text, valuesFile, sets);
    }

    /** The chart's lookup of a Secret it generates (templates/_security.tpl), as written there. */
    static final String SECRET_LOOKUP = "lookup \"v1\" \"Secret\" .root.Release.Namespace .name";

    /** What {@code lookup} answers when there is no cluster (helm template, --dry-run): an empty dict. */
    static final BiFunction<Path, String, String> NO_CLUSTER = (file, text) -> text.replace(SECRET_LOOKUP, "dict");

    /**
     * The {@code helm test} hooks, rendered. helm-java's template leaves hooks out of its output, so
     * this renders a copy of the chart whose test templates lack the hook annotation (tests assert the
     * annotation on the source file).
     */
    static List<HasMetadata> renderTestHooks(Map<String, Object> sets) {
        return renderCopy(
                (file, text) -> file.startsWith(Path.of("templates", "tests"))
                        ? String.join(
                                "\n",
                                text.lines()
                                        .filter(line -> !line.contains("helm.sh/hook"))
                                        .toList())
                        : text,
                sets);
    }

    /**
     * A copy of the chart with each template's text passed through {@code edit} (its path relative to
     * the chart, its text), rendered: how a test stands in for what {@code helm template} cannot do
     * without a cluster, such as the hooks above or the answer of {@code lookup}.
     */
    static List<HasMetadata> renderCopy(BiFunction<Path, String, String> edit, Map<String, Object> sets) {
        return parse(templateCopy(edit, Optional.empty(), sets));
    }

    /** {@link #template} of a copy of the chart edited by {@code edit}, then by {@link #NO_CLUSTER}. */
    private static String templateCopy(
            BiFunction<Path, String, String> edit, Optional<Path> valuesFile, Map<String, Object> sets) {
        return onCopy(edit, copy -> {
            TemplateCommand command = new Helm(copy)
                    .template()
                    .withName(RELEASE)
                    .withNamespace(NAMESPACE)
                    .withKubeVersion(KUBE_VERSION);
            valuesFile.ifPresent(command::withValuesFile);
            sets.forEach(command::set);
            return command.call();
        });
    }

    /** The output of {@code helm install --dry-run} without a cluster: the release summary and NOTES.txt. */
    static String installDryRunOutput(Map<String, Object> sets) {
        return onCopy((file, text) -> text, copy -> {
            InstallCommand command = new Helm(copy)
                    .install()
                    .withName(RELEASE)
                    .withNamespace(NAMESPACE)
                    .withKubeVersion(KUBE_VERSION)
                    .clientOnly()
                    .dryRun();
            sets.forEach(command::set);
            return command.call().getOutput();
        });
    }

    /** Runs {@code helm} on a temporary copy of the chart, its templates edited by {@code edit}, then by {@link #NO_CLUSTER}. */
    private static String onCopy(BiFunction<Path, String, String> edit, Function<Path, String> helm) {
        try {
            Path copy = Files.createTempDirectory("tributary-chart-");
            try {
                copyTree(chartDir(), copy);
                try (Stream<Path> files = Files.walk(copy.resolve("templates"))) {
                    for (Path file : files.filter(Files::isRegularFile).toList()) {
                        Path relative = copy.relativize(file);
                        String text = edit.apply(relative, Files.readString(file));
                        Files.writeString(file, NO_CLUSTER.apply(relative, text));
                    }
                }
                return helm.apply(copy);
            } finally {
                deleteTree(copy);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    /** Every document of a rendered stream, typed by its kind (unknown kinds become generic resources). */
    static List<HasMetadata> parse(String yaml) {
        Object parsed = SERIALIZATION.unmarshal(yaml);
        List<HasMetadata> resources = new ArrayList<>();
        if (parsed instanceof Collection<?> many) {
            for (Object one : many) {
                if (one != null) {
                    resources.add((HasMetadata) one);
                }
            }
        } else if (parsed instanceof HasMetadata one) {
            resources.add(one);
        }
        return resources;
    }

    static List<HasMetadata> render(Optional<Path> valuesFile, Map<String, Object> sets) {
        return parse(template(valuesFile, sets));
    }

    static <T extends HasMetadata> List<T> ofKind(List<HasMetadata> resources, Class<T> kind) {
        return resources.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    static <T extends HasMetadata> T named(List<HasMetadata> resources, Class<T> kind, String name) {
        return ofKind(resources, kind).stream()
                .filter(r -> r.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind.getSimpleName() + " named " + name + " in "
                        + resources.stream().map(HelmChart::describe).toList()));
    }

    static String describe(HasMetadata resource) {
        return resource.getKind() + "/" + resource.getMetadata().getName();
    }

    /** The pod template of a workload (StatefulSet or Deployment), if it is one. */
    static Optional<PodTemplateSpec> podTemplate(HasMetadata resource) {
        if (resource instanceof StatefulSet statefulSet) {
            return Optional.of(statefulSet.getSpec().getTemplate());
        }
        if (resource instanceof Deployment deployment) {
            return Optional.of(deployment.getSpec().getTemplate());
        }
        return Optional.empty();
    }

    /**
     * Every field of a typed resource that the Kubernetes model does not know, as {@code
     * Kind/name.path: unknown field 'key'}. Generic resources (custom kinds fabric8 has no model for)
     * are all "additional properties" and are not walked; their tests check them field by field.
     */
    static List<String> unknownFields(HasMetadata resource) {
        List<String> found = new ArrayList<>();
        if (!(resource instanceof GenericKubernetesResource)) {
            walk(resource, describe(resource), found);
        }
        return found;
    }

    private static void walk(Object node, String path, List<String> found) {
        if (node == null) {
            return;
        }
        if (node instanceof Collection<?> list) {
            int i = 0;
            for (Object item : list) {
                walk(item, path + "[" + i++ + "]", found);
            }
            return;
        }
        if (node instanceof Map<?, ?> map) {
            map.forEach((key, value) -> walk(value, path + "[" + key + "]", found));
            return;
        }
        if (!node.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method getter : node.getClass().getMethods()) {
            if (!isPropertyGetter(getter)) {
                continue;
            }
            Object value = invoke(getter, node);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra) {
                    extra.keySet().forEach(key -> found.add(path + ": unknown field '" + key + "'"));
                }
            } else {
                walk(value, path + "." + propertyName(getter), found);
            }
        }
    }

    private static boolean isPropertyGetter(Method method) {
        return Modifier.isPublic(method.getModifiers())
                && !Modifier.isStatic(method.getModifiers())
                && method.getParameterCount() == 0
                && method.getName().startsWith("get")
                && !method.getName().equals("getClass")
                && method.getDeclaringClass().getName().startsWith("io.fabric8.");
    }

    private static String propertyName(Method getter) {
        String name = getter.getName().substring(3);
        return name.isEmpty() ? name : Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    private static Object invoke(Method getter, Object target) {
        try {
            return getter.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + getter + " of " + target.getClass(), e);
        }
    }
}
