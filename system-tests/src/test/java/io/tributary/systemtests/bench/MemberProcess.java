package io.tributary.systemtests.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The bench's side of one {@link GroupBenchMember}: the child JVM, the thread that reads its event
 * lines into the group's {@link GroupTimeline}, and the commands it can be sent. The child's
 * standard error (the client library's warnings) goes to a file of the work directory.
 */
final class MemberProcess implements AutoCloseable {

    /** The child's JVM flags: a small heap, the serial collector (the machine has few cores). */
    static final List<String> JVM_FLAGS = List.of("-Xms256m", "-Xmx256m", "-XX:+UseSerialGC");

    /**
     * Beyond this, a child's {@code T} time and the bench's {@code System.nanoTime()} are not one
     * clock (the line took more than this to arrive only if the machine stalled for as long).
     */
    private static final long CLOCK_SKEW_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final String name;
    private final Process process;
    private final OutputStream input;
    private final Thread reader;
    private final Path stderr;
    private volatile String failure;

    private MemberProcess(String name, Process process, Path stderr, GroupTimeline timeline) {
        this.name = name;
        this.process = process;
        this.input = process.getOutputStream();
        this.stderr = stderr;
        this.reader = Thread.ofPlatform().daemon().name("member-" + name).start(() -> read(timeline));
    }

    /**
     * Starts member {@code name} with {@code options} ({@link GroupBenchMember}'s arguments but for
     * {@code name}), its events going to {@code timeline}.
     */
    static MemberProcess start(
            String name, Map<String, String> options, GroupTimeline timeline, Path logDir, Path log4jConfig)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(JVM_FLAGS);
        command.add("-Dlog4j2.configurationFile=" + log4jConfig);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(GroupBenchMember.class.getName());
        command.add("--name=" + name);
        options.forEach((k, v) -> command.add("--" + k + "=" + v));
        Path stderr = logDir.resolve(options.get("group") + "-" + name + ".err");
        Process process =
                new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        return new MemberProcess(name, process, stderr, timeline);
    }

    String name() {
        return name;
    }

    /** Why the reader stopped other than by the child's end, or null. */
    String failure() {
        return failure;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Sends one command line ({@code resume}, {@code leave}). */
    void send(String command) throws IOException {
        synchronized (input) {
            input.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            input.flush();
        }
    }

    /**
     * SIGKILL, right after reading the clock: returns that time. Waits until the process is gone
     * and its reader has read every line the child wrote.
     */
    long kill() throws InterruptedException {
        long t = System.nanoTime();
        process.destroyForcibly();
        process.waitFor();
        reader.join(Duration.ofSeconds(10));
        return t;
    }

    /** Asks the child to leave the group and waits for its exit at most {@code patience}; kills it after. */
    void leave(Duration patience) throws InterruptedException {
        try {
            send("leave");
        } catch (IOException e) {
            // already gone
        }
        if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
        reader.join(Duration.ofSeconds(10));
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }

    private void read(GroupTimeline timeline) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith(GroupBenchMember.MARKER)) {
                    continue;
                }
                GroupTimeline.Event event = timeline.add(name, line.substring(GroupBenchMember.MARKER.length()));
                if (event.kind() == 'T') {
                    long skew = System.nanoTime() - event.nanos();
                    if (skew < 0 || skew > CLOCK_SKEW_LIMIT_NANOS) {
                        failure = name + "'s System.nanoTime() is not the bench's clock (it is " + skew
                                + " ns behind): the figures would be meaningless";
                        process.destroyForcibly();
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            failure = name + ": " + e + " (its standard error: " + stderr + ")";
        }
    }
}
