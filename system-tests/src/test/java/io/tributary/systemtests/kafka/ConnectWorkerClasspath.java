package io.tributary.systemtests.kafka;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * What a {@link ConnectWorker}'s JVM runs: Kafka Connect's runtime ({@code
 * kafka-peer/target/kafka-libs}, system property {@code tributary.kafka.libs}) and a jar of the
 * test's connectors, and the JVM options that start it quickly. Both live in {@code <build
 * dir>/connect-worker/} (system property {@code tributary.build.dir}).
 *
 * <ul>
 *   <li>{@value #PLUGINS_JAR}: package {@code kafka.connect} of this module's test classes (system
 *       property {@code tributary.test.classes}) and their {@code META-INF/services} entries
 *       (Connect finds them with {@code plugin.discovery=service_load}), written once per test JVM.
 *       A jar rather than the test-classes directory because class data sharing (below) archives
 *       classes from jars only and will not dump with a non-empty directory on the class path.
 *   <li>{@code connect-worker-<fingerprint>.jsa}: a dynamic class data sharing archive ({@code
 *       -XX:+AutoCreateSharedArchive}): the first worker that exits cleanly (SIGTERM) without an
 *       archive writes the classes it loaded; every later worker maps them instead of loading and
 *       verifying Connect's classes from the jars, which is most of a worker's start on a loaded
 *       2-core machine (measured: 3.5 s to 1.4 s until it first contacts the cluster). The JVM
 *       refuses an archive whose class path changed (a jar's size or time) and then runs without
 *       one, but JDK 25 does not replace it (seen: every worker started without it); so the
 *       archive's name carries a fingerprint of the class path and the JVM ({@link
 *       #fingerprint}), a changed one gets a new file, and the old files are deleted. Workers
 *       close one at a time, so two never write it at once.
 * </ul>
 *
 * <p>The plugins' jar is the same bytes for the same classes (no manifest, fixed entry times) and
 * is only replaced when they change, so that its time, which the archive records, stays.
 *
 * <p>Thread-safety: {@link #get()} is synchronized; the record is immutable.
 */
record ConnectWorkerClasspath(Path kafkaLibs, Path pluginsJar, Path archive) {

    static final String PLUGINS_JAR = "connect-test-plugins.jar";

    /** The archives' names: this, a fingerprint, {@value #ARCHIVE_SUFFIX}. */
    static final String ARCHIVE_PREFIX = "connect-worker-";

    static final String ARCHIVE_SUFFIX = ".jsa";

    /** The connectors' package in the test classes. */
    private static final String PLUGINS_PACKAGE = "io/tributary/systemtests/kafka/connect/";

    /** Their {@code ServiceLoader} registrations in the test classes. */
    private static final List<String> SERVICE_FILES = List.of(
            "META-INF/services/org.apache.kafka.connect.source.SourceConnector",
            "META-INF/services/org.apache.kafka.connect.sink.SinkConnector");

    private static ConnectWorkerClasspath instance;

    /** The class path and options, writing the plugins' jar on first use in this JVM. */
    static synchronized ConnectWorkerClasspath get() throws IOException {
        if (instance == null) {
            Path dir = Path.of(System.getProperty("tributary.build.dir", "target"), "connect-worker")
                    .toAbsolutePath();
            Files.createDirectories(dir);
            Path jar = dir.resolve(PLUGINS_JAR);
            writePluginsJar(locateTestClasses(), jar);
            Path libs = locateKafkaLibs();
            Path archive = dir.resolve(ARCHIVE_PREFIX + fingerprint(libs, jar) + ARCHIVE_SUFFIX);
            deleteOtherArchives(dir, archive);
            instance = new ConnectWorkerClasspath(libs, jar, archive);
        }
        return instance;
    }

    /**
     * 16 hex digits of a SHA-256 over what a class data sharing archive must match: the JVM's
     * version and every jar of the class path with its size and modification time.
     */
    static String fingerprint(Path kafkaLibs, Path pluginsJar) throws IOException {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        sha.update(System.getProperty("java.vm.version").getBytes(StandardCharsets.UTF_8));
        List<Path> jars = new ArrayList<>();
        try (Stream<Path> libs = Files.list(kafkaLibs)) {
            libs.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(jars::add);
        }
        jars.add(pluginsJar);
        for (Path jar : jars) {
            String entry = "\n" + jar.getFileName() + " " + Files.size(jar) + " "
                    + Files.getLastModifiedTime(jar).toMillis();
            sha.update(entry.getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 8);
    }

    /** Deletes the archives of earlier class paths (each tens of megabytes). */
    private static void deleteOtherArchives(Path dir, Path keep) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                if (name.startsWith(ARCHIVE_PREFIX) && name.endsWith(ARCHIVE_SUFFIX) && !file.equals(keep)) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    /** {@code -cp}'s value: Kafka's jars (a wildcard the launcher expands), then the plugins' jar. */
    String classpath() {
        return kafkaLibs.toAbsolutePath() + File.separator + "*" + File.pathSeparator + pluginsJar;
    }

    /** The options for class data sharing with the class path's archive. */
    List<String> sharingOptions() {
        return List.of("-XX:+AutoCreateSharedArchive", "-XX:SharedArchiveFile=" + archive);
    }

    /**
     * Writes the connectors' classes and service files from {@code classes} into {@code jar}
     * (through a temporary file moved into place, so a worker never sees half a jar). Rewritten
     * whole each time: the same bytes as long as the classes are the same, so the archive still
     * fits.
     */
    private static void writePluginsJar(Path classes, Path jar) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> plugins = Files.list(classes.resolve(PLUGINS_PACKAGE))) {
            plugins.filter(p -> p.toString().endsWith(".class")).sorted().forEach(files::add);
        }
        for (String service : SERVICE_FILES) {
            files.add(classes.resolve(service));
        }
        if (files.size() == SERVICE_FILES.size()) {
            throw new IllegalStateException("no connector classes in " + classes.resolve(PLUGINS_PACKAGE));
        }
        Path next = jar.resolveSibling(jar.getFileName() + ".next");
        // no manifest: JarOutputStream would date it now, and the jar would differ at each run
        try (OutputStream out = Files.newOutputStream(next);
                JarOutputStream jarOut = new JarOutputStream(out)) {
            for (Path file : files) {
                JarEntry entry =
                        new JarEntry(classes.relativize(file).toString().replace(File.separatorChar, '/'));
                // a fixed time: the same classes give the same jar, which the archive was made with
                entry.setTime(0);
                jarOut.putNextEntry(entry);
                Files.copy(file, jarOut);
                jarOut.closeEntry();
            }
        }
        if (Files.exists(jar) && Files.mismatch(jar, next) == -1) {
            // unchanged: keep the file (and its time) that the archive names
            Files.delete(next);
            return;
        }
        Files.move(next, jar, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static Path locateKafkaLibs() {
        Path libs = Path.of(System.getProperty("tributary.kafka.libs", "../kafka-peer/target/kafka-libs"));
        if (!Files.exists(libs.resolve("connect-runtime-4.4.0.jar"))) {
            throw new IllegalStateException("No Kafka Connect runtime in " + libs.toAbsolutePath()
                    + ": build the kafka-peer module first (./mvnw -pl system-tests -am verify does).");
        }
        return libs;
    }

    private static Path locateTestClasses() {
        String property = System.getProperty("tributary.test.classes");
        if (property != null) {
            return Path.of(property);
        }
        try {
            return Path.of(ConnectWorkerClasspath.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
