package io.tributary.systemtests;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The public face of {@link ScriptedCluster} for test packages below this one (the fault-injection
 * suite in {@code io.tributary.systemtests.chaos}): a {@code bin/tributary} cluster with its own run
 * state and port offset, driven by name.
 */
public final class ProcessCluster {

    /** What one {@code bin/tributary} command did. */
    public record Result(int exitCode, String output) {}

    private final ScriptedCluster cluster;

    private ProcessCluster(ScriptedCluster cluster) {
        this.cluster = cluster;
    }

    /** See {@link ScriptedCluster#create}. */
    public static ProcessCluster create(
            Path workDir, String logsName, List<Integer> basePorts, Map<String, String> environment)
            throws IOException {
        return new ProcessCluster(ScriptedCluster.create(workDir, logsName, basePorts, environment));
    }

    public int portOffset() {
        return cluster.portOffset();
    }

    public Path logsDir() {
        return cluster.logsDir();
    }

    /** Runs {@code bin/tributary args...} with this cluster's state and port offset. */
    public Result run(String... args) {
        ScriptedCluster.Result result = cluster.run(args);
        return new Result(result.exitCode(), result.output());
    }

    /** See {@link ScriptedCluster#pid}. */
    public java.util.OptionalLong pid(String name) {
        return cluster.pid(name);
    }

    /** See {@link ScriptedCluster#signal}: {@code kill -SIGNAL} by PID to one of this cluster's processes. */
    public void signal(String name, String signal) {
        cluster.signal(name, signal);
    }

    /** {@code bin/tributary down}, then SIGKILL by PID to any of its processes still alive. */
    public void downAndKillLeftovers() {
        cluster.downAndKillLeftovers();
    }
}
