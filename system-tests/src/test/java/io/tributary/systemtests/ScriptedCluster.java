package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster run by the real {@code bin/tributary}, for system tests: its own run state, its own
 * port offset (every port it will use checked free first), logs that outlive the test, and a last
 * resort that SIGKILLs, by PID, any of its processes still alive at the end (also from a shutdown
 * hook), never a process it did not start.
 *
 * <p>Thread-safe for one test class: commands run one at a time from the test thread.
 */
public final class ScriptedCluster {

    private static final Logger log = LoggerFactory.getLogger(ScriptedCluster.class);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(4);
    private static final Pattern PID_LINE = Pattern.compile("(?m)^pid=(\\d+)$");

    /**
     * Every port of every offset handed out in this JVM, never handed out again (a run creates a
     * few dozen clusters of about twenty ports; the offsets leave room for hundreds). Guarded by
     * itself.
     */
    private static final java.util.Set<Integer> PORTS_GIVEN = new java.util.HashSet<>();

    /**
     * JVM options for every process of every test cluster, before the test's own (system property
     * {@code tributary.systest.cluster.jvm.flags}, from the POM's {@code systest.cluster.jvm.flags}:
     * C1 only and the serial collector by default, as the Kafka peer's broker runs). A test
     * cluster's JVMs live for a minute or two: C2's compilations and G1's threads cost seven JVMs on
     * two cores more than they give back (a 3-coordinator, 3-broker, 1-gateway {@code up} took 36 s
     * and 56 CPU seconds with the defaults, 19 to 23 s and 26 to 31 with these). None of these
     * tests measures speed; the benchmarks start their clusters without this property.
     */
    static final String CLUSTER_JVM_FLAGS =
            System.getProperty("tributary.systest.cluster.jvm.flags", "").strip();

    /** What one {@code bin/tributary} command did. */
    public record Result(int exitCode, String output) {}

    private final Path repoRoot;
    private final Path workDir;
    private final Path stateDir;
    private final Path logsDir;
    private final int portOffset;
    private final Map<String, String> environment;
    private final Map<Long, String> pidsSeen = new ConcurrentHashMap<>();
    private final AtomicInteger commandCount = new AtomicInteger();

    private ScriptedCluster(
            Path repoRoot, Path workDir, Path logsDir, int portOffset, Map<String, String> environment) {
        this.repoRoot = repoRoot;
        this.workDir = workDir;
        this.stateDir = workDir.resolve("state");
        this.logsDir = logsDir;
        this.portOffset = portOffset;
        this.environment = Map.copyOf(environment);
    }

    /**
     * A cluster whose run state lives under {@code workDir} and whose logs go to {@code
     * target/<logsName>} (emptied first), on a port offset at which every one of {@code basePorts}
     * is free.
     *
     * @param environment extra variables for every command (e.g. {@code TRIBUTARY_STOP_GRACE})
     */
    public static ScriptedCluster create(
            Path workDir, String logsName, List<Integer> basePorts, Map<String, String> environment)
            throws IOException {
        Path repoRoot = Path.of(System.getProperty("tributary.repo.root", ".."))
                .toAbsolutePath()
                .normalize();
        assertThat(repoRoot.resolve("bin/tributary"))
                .as("bin/tributary under the repository root (system property tributary.repo.root)")
                .isExecutable();
        // The logs outlive the test, for whoever has to find out why it failed.
        Path logsDir = Path.of(System.getProperty("tributary.build.dir", "target"))
                .toAbsolutePath()
                .resolve(logsName);
        if (Files.isDirectory(logsDir)) {
            try (Stream<Path> old = Files.list(logsDir)) {
                for (Path file : old.toList()) {
                    Files.delete(file);
                }
            }
        }
        var cluster = new ScriptedCluster(repoRoot, workDir, logsDir, choosePortOffset(basePorts), environment);
        log.info("repo {}, work {}, logs {}, port offset {}", repoRoot, workDir, logsDir, cluster.portOffset);
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::killLeftovers, logsName + "-leftover-killer"));
        return cluster;
    }

    /**
     * The cluster's JVM options: {@link #CLUSTER_JVM_FLAGS} first, then the test's own {@code
     * TRIBUTARY_JAVA_OPTS} ({@code bin/tributary}'s default {@code -Xmx1g} when it sets none), which
     * win where they name the same option.
     */
    static String javaOptions(String fromTest) {
        String own = fromTest == null ? "-Xmx1g" : fromTest;
        return CLUSTER_JVM_FLAGS.isBlank() ? own : (CLUSTER_JVM_FLAGS + " " + own).strip();
    }

    public int portOffset() {
        return portOffset;
    }

    public Path logsDir() {
        return logsDir;
    }

    /** The PIDs of this cluster's processes seen alive so far, with their command lines. */
    Map<Long, String> pidsSeen() {
        return pidsSeen;
    }

    public Result run(String... args) {
        return run(Map.of(), args);
    }

    /** Runs bin/tributary with this cluster's state dir and port offset (overridable by env). */
    public Result run(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>();
        command.add(repoRoot.resolve("bin/tributary").toString());
        command.addAll(List.of(args));
        Path output = workDir.resolve("command-%02d.out".formatted(commandCount.incrementAndGet()));
        var builder = new ProcessBuilder(command)
                .directory(repoRoot.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true)
                // A file, not a pipe: the cluster's processes must not be able to hold our output open.
                .redirectOutput(output.toFile());
        Map<String, String> variables = builder.environment();
        variables.keySet().removeIf(key -> key.startsWith("TRIBUTARY_"));
        variables.put("TRIBUTARY_STATE", stateDir.toString());
        variables.put("TRIBUTARY_PORT_OFFSET", Integer.toString(portOffset));
        // The reactor has just packaged the jars; never build from inside the build.
        variables.put("TRIBUTARY_SKIP_BUILD", "1");
        // The JDK running the tests is 21+ (the enforcer checked); run the cluster on it too.
        variables.put("JAVA_HOME", System.getProperty("java.home"));
        variables.putAll(environment);
        variables.putAll(env);
        variables.put("TRIBUTARY_JAVA_OPTS", javaOptions(variables.get("TRIBUTARY_JAVA_OPTS")));
        try {
            Process process = builder.start();
            if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail(
                        "bin/tributary %s did not finish within %s:%n%s",
                        String.join(" ", args), COMMAND_TIMEOUT, Files.readString(output));
            }
            var result = new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
            log.info("bin/tributary {} -> exit {}\n{}", String.join(" ", args), result.exitCode(), result.output());
            rememberRecordedPids();
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running bin/tributary", e);
        }
    }

    /**
     * The recorded PID of {@code name} (e.g. {@code broker-0}) while it is a live process of this
     * cluster (its command line unchanged since this cluster first saw it); empty otherwise.
     */
    public java.util.OptionalLong pid(String name) {
        rememberRecordedPids();
        Path env = stateDir.resolve(name + ".env");
        if (!Files.isRegularFile(env)) {
            return java.util.OptionalLong.empty();
        }
        try {
            var match = PID_LINE.matcher(Files.readString(env));
            if (match.find()) {
                long pid = Long.parseLong(match.group(1));
                if (isAlive(pid)) {
                    return java.util.OptionalLong.of(pid);
                }
            }
            return java.util.OptionalLong.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends {@code signal} ({@code STOP}, {@code CONT}...) with {@code kill} to the live process
     * {@code name}, by its PID only (one this cluster started and still recognises).
     *
     * @throws AssertionError if the process is not alive or {@code kill} fails
     */
    public void signal(String name, String signal) {
        long pid = pid(name).orElseThrow(() -> new AssertionError(name + " is not a live process of this cluster"));
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new AssertionError("kill -%s %d (%s) failed: %s".formatted(signal, pid, name, output));
            }
            log.info("kill -{} {} ({})", signal, pid, name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    /** {@code bin/tributary down}, then the last resort, whatever happened before. */
    public void downAndKillLeftovers() {
        try {
            Result down = run("down");
            if (down.exitCode() != 0) {
                log.warn("bin/tributary down exited {} in tearDown", down.exitCode());
            }
        } catch (RuntimeException e) {
            log.warn("bin/tributary down failed in tearDown", e);
        } finally {
            killLeftovers();
        }
    }

    /**
     * {@code bin/tributary up} with {@code shape} (e.g. {@code --coordinators 3 --brokers 3}), the
     * data under the work directory and the logs in {@link #logsDir()}; returns once every process
     * is ready. When it fails, everything it started is stopped and the work directory deleted
     * ({@link #downAndDeleteWork()}) before the exception, which carries the script's output.
     */
    public void upOrClean(String... shape) {
        List<String> args = new ArrayList<>(List.of("up"));
        args.addAll(List.of(shape));
        args.addAll(List.of("--data", workDir.resolve("data").toString(), "--logs", logsDir.toString()));
        Result up = run(args.toArray(String[]::new));
        if (up.exitCode() != 0) {
            downAndDeleteWork();
            throw new IllegalStateException("bin/tributary up failed (exit " + up.exitCode() + "):\n" + up.output());
        }
    }

    /**
     * {@link #downAndKillLeftovers()}, then deletes the work directory (run state and whatever data
     * the cluster kept there); the logs, under {@code target/}, stay.
     */
    public void downAndDeleteWork() {
        try {
            downAndKillLeftovers();
        } finally {
            try (Stream<Path> paths = Files.walk(workDir)) {
                paths.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory left behind is harmless
            }
        }
    }

    /**
     * Alive: /proc/PID exists, is not a zombie (this machine's init may be slow to reap), and still
     * has the command line it had when the test first saw it, so a reused PID does not count.
     */
    boolean isAlive(long pid) {
        String seen = pidsSeen.get(pid);
        return seen != null && seen.equals(commandLine(pid));
    }

    /** Remembers a cluster process (a Tributary jar) the first time it is seen alive. */
    void remember(long pid) {
        String commandLine = commandLine(pid);
        if (commandLine.contains("-jar") && commandLine.contains("tributary-")) {
            pidsSeen.putIfAbsent(pid, commandLine);
        }
    }

    /** The PIDs in the run state, so that the last resort knows them even if status never ran. */
    void rememberRecordedPids() {
        if (!Files.isDirectory(stateDir)) {
            return;
        }
        try (Stream<Path> files = Files.list(stateDir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".env")).toList()) {
                PID_LINE.matcher(Files.readString(file))
                        .results()
                        .forEach(match -> remember(Long.parseLong(match.group(1))));
            }
        } catch (IOException e) {
            log.warn("could not read the run state in {}", stateDir, e);
        }
    }

    /** The last resort: SIGKILL to any process of this cluster that is still alive. */
    void killLeftovers() {
        rememberRecordedPids();
        for (long pid : pidsSeen.keySet()) {
            if (isAlive(pid)) {
                log.warn("pid {} outlived bin/tributary down; killing it", pid);
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /** The command line of a live, non-zombie process; empty otherwise. */
    static String commandLine(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            String stat = Files.readString(proc.resolve("stat"));
            char state = stat.substring(stat.lastIndexOf(')') + 2).charAt(0);
            if (state == 'Z' || state == 'X') {
                return "";
            }
            return new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
        } catch (IOException gone) {
            return "";
        }
    }

    /**
     * An offset below the ephemeral range at which every base port is free and clear of offset 0,
     * and none of whose ports another cluster of this JVM was given: Failsafe runs two test classes
     * at a time (see {@code kafka.OnSharedTargets}), so two clusters may choose their offsets at the same time,
     * and a port is only taken once {@code bin/tributary up} starts its process, seconds later.
     */
    private static int choosePortOffset(List<Integer> basePorts) {
        var random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200; attempt++) {
            int offset = 100 * random.nextInt(20, 231);
            synchronized (PORTS_GIVEN) {
                if (basePorts.stream().noneMatch(port -> PORTS_GIVEN.contains(port + offset))
                        && allFree(basePorts, offset)) {
                    basePorts.forEach(port -> PORTS_GIVEN.add(port + offset));
                    return offset;
                }
            }
        }
        throw new IllegalStateException("no TRIBUTARY_PORT_OFFSET with free ports found in 200 attempts");
    }

    private static boolean allFree(List<Integer> basePorts, int offset) {
        for (int port : basePorts) {
            try (var socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port + offset));
            } catch (IOException taken) {
                return false;
            }
        }
        return true;
    }
}
