package io.tributary.systemtests.kafka;

import io.tributary.common.testing.BackgroundFailures;
import io.tributary.systemtests.DebianTool;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A {@link GroupMember} in a child JVM, so that it can really crash: SIGKILL stops its heartbeats
 * with no leave, and only the coordinator's session timeout takes its partitions away (a member in
 * the test's JVM that merely stops polling keeps heartbeating from the consumer's background thread
 * and leaves by itself at {@code max.poll.interval.ms}, which is another thing).
 *
 * <p>The child ({@link #main}) writes each event as one line on its standard output, after the
 * marker {@value #MARKER} (anything else there, a library's logging, is ignored):
 *
 * <pre>
 *   A 0,3,7          assigned partitions       (callback: waits for "ok" on stdin)
 *   R 0,3            revoked partitions        (callback: waits for "ok" on stdin)
 *   L 7              lost partitions           (callback: waits for "ok" on stdin)
 *   D 3 41 1207      delivered: partition, offset, value
 *   C 3=42,7=10      committed: partition=next offset,...
 *   F 3=42 error     commit failed
 *   H                holding before a commit, until killed (after "hold" on stdin)
 * </pre>
 *
 * A callback returns only after the parent has put the event into the {@link GroupHistory} and
 * answered {@code ok}: the event is in the shared log before the member can tell the coordinator
 * it gave a partition up, as for the members in the test's JVM. {@code leave} on stdin makes the
 * child close its consumer and exit; {@code hold} makes it stop
 * after reporting its next poll's deliveries, before it commits them ({@link #crash}).
 *
 * <p>The same lines and acknowledgements make a member in another client library a child of this
 * kind too: {@link #startLibrdkafka} runs Debian's python3-confluent-kafka (librdkafka) with the
 * script {@value #LIBRDKAFKA_MEMBER} beside this class.
 */
final class ChildGroupMember implements AutoCloseable {

    static final String MARKER = "@@ ";

    /** Debian's Python, the one python3-confluent-kafka is installed for (not a pyenv's python3). */
    static final String DEBIAN_PYTHON = "/usr/bin/python3";

    /** The librdkafka member, a resource beside this class: {@code name bootstrapServers groupId topic}. */
    private static final String LIBRDKAFKA_MEMBER = "librdkafka_group_member.py";

    private final String name;
    private final Process process;
    private final OutputStream input;
    private final Path stderr;
    private final BackgroundFailures.Task reader;

    /** Counted down when the child reports that it holds before a commit ({@code H}). */
    private final CountDownLatch holding = new CountDownLatch(1);

    /** Set before the test ends the child (crash, leave, close): any other end is a failure. */
    private volatile boolean ending;

    private ChildGroupMember(
            String name, Process process, Path stderr, GroupHistory history, BackgroundFailures background) {
        this.name = name;
        this.process = process;
        this.input = process.getOutputStream();
        this.stderr = stderr;
        this.reader = background.start("child-member-" + name, task -> read(history));
    }

    /**
     * Starts a {@link GroupMember} of {@code protocol} (static with {@code instanceId}, dynamic
     * with null) in a child JVM; its standard error goes to {@code stderr}. The thread that reads
     * its events reports to {@code background} whatever ends it other than the test's {@link
     * #crash}, {@link #leave} or {@link #close}: a line it cannot parse (the child would wait for an
     * acknowledgement that never comes), or the child's own end (its consumer failed).
     */
    static ChildGroupMember start(
            String name,
            String bootstrapServers,
            String groupId,
            String instanceId,
            GroupMember.Protocol protocol,
            String topic,
            GroupHistory history,
            Path stderr,
            BackgroundFailures background)
            throws IOException {
        // Failsafe starts the test JVM from a manifest-only jar and names the real class path here.
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classpath,
                ChildGroupMember.class.getName(),
                name,
                bootstrapServers,
                groupId,
                topic,
                protocol.name()));
        if (instanceId != null) {
            command.add(instanceId);
        }
        return launch(name, command, history, stderr, background);
    }

    /**
     * Starts a member in another client library: Debian's python3-confluent-kafka (librdkafka's
     * classic protocol, the {@code range} assignor, the classic Java members' session timeout and
     * heartbeat) running {@value #LIBRDKAFKA_MEMBER}, which writes the same event lines and waits
     * for the same acknowledgements as the Java child. Fails naming the Debian package when
     * python3-confluent-kafka is not installed.
     */
    static ChildGroupMember startLibrdkafka(
            String name,
            String bootstrapServers,
            String groupId,
            String topic,
            GroupHistory history,
            Path stderr,
            BackgroundFailures background)
            throws IOException {
        DebianTool.requirePythonModule(DEBIAN_PYTHON, "confluent_kafka", "python3-confluent-kafka");
        Path script;
        try {
            script = Path.of(
                    Objects.requireNonNull(ChildGroupMember.class.getResource(LIBRDKAFKA_MEMBER), LIBRDKAFKA_MEMBER)
                            .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<String> command = List.of(
                DEBIAN_PYTHON,
                script.toString(),
                name,
                bootstrapServers,
                groupId,
                topic,
                Long.toString(GroupMember.CLASSIC_SESSION_TIMEOUT.toMillis()),
                Long.toString(GroupMember.CLASSIC_HEARTBEAT_INTERVAL.toMillis()));
        return launch(name, command, history, stderr, background);
    }

    private static ChildGroupMember launch(
            String name, List<String> command, GroupHistory history, Path stderr, BackgroundFailures background)
            throws IOException {
        Process process =
                new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        return new ChildGroupMember(name, process, stderr, history, background);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    /** Whether the child process is still running. */
    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * SIGKILL: no leave, no revocation, no commit. The child first holds ({@code hold}: it stops
     * after reporting the deliveries of its next poll, before committing them), so that the kill
     * cannot fall between a commit reaching the coordinator and its report reaching the history:
     * the group's committed offsets are then exactly what the history says the member committed,
     * and what it delivered since is for the next owner to deliver again. Returns once the process
     * is gone and every line it wrote is in the history, then logs the crash; fails if the child
     * did not hold within {@link Clients#PATIENCE} (it is killed all the same). Only the Java child
     * holds: the librdkafka script has no {@code hold}, and its members are not crashed.
     */
    void crash(GroupHistory history) throws IOException, InterruptedException {
        send("hold");
        boolean held = holding.await(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        ending = true;
        process.destroyForcibly();
        process.waitFor();
        reader.join(Duration.ofSeconds(30));
        history.add(new GroupHistory.Crashed(name));
        if (!held) {
            throw new IllegalStateException(name + " did not hold before a commit within " + Clients.PATIENCE
                    + " of being asked to (it was killed all the same); its standard error is in " + stderr);
        }
    }

    /**
     * A clean leave: {@code leave} on the child's input makes it close its consumer (the revocation
     * callback, acknowledged as any other, and the leave request) and exit. Returns once it has
     * exited and every line it wrote is in the history; fails if it does not exit with 0 within
     * {@link Clients#PATIENCE}.
     */
    void leave() throws IOException, InterruptedException {
        ending = true;
        send("leave");
        boolean exited = process.waitFor(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        reader.join(Duration.ofSeconds(30));
        if (!exited || process.exitValue() != 0) {
            throw new IllegalStateException(name + (exited ? " exited with " + process.exitValue() : " did not exit")
                    + " after leave; its standard error is in " + stderr);
        }
    }

    @Override
    public void close() {
        ending = true;
        process.destroyForcibly();
    }

    /**
     * Reads the child's events into the history and acknowledges its callbacks until it ends;
     * throws (a failure of the reader's task) when the child ended without the test ending it.
     */
    private void read(GroupHistory history) throws InterruptedException {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith(MARKER)) {
                    continue;
                }
                if (line.equals(MARKER + "H")) {
                    holding.countDown();
                    continue;
                }
                GroupHistory.Event event = parse(name, line.substring(MARKER.length()));
                history.add(event);
                if (isCallback(event)) {
                    send("ok");
                }
            }
        } catch (IOException e) {
            // the child is gone (killed): every line it flushed has been read
        } finally {
            try {
                input.close();
            } catch (IOException e) {
                // the child is gone
            }
        }
        if (!ending) {
            process.waitFor(30, TimeUnit.SECONDS);
            throw new IllegalStateException(name + " ended by itself ("
                    + (process.isAlive() ? "its output closed" : "exit code " + process.exitValue())
                    + "); its standard error is in " + stderr);
        }
    }

    /** One line to the child's input; the reader's acknowledgements and {@link #leave()} share it. */
    private void send(String line) throws IOException {
        synchronized (input) {
            input.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            input.flush();
        }
    }

    private static boolean isCallback(GroupHistory.Event event) {
        return event instanceof GroupHistory.Assigned
                || event instanceof GroupHistory.Revoked
                || event instanceof GroupHistory.Lost;
    }

    static GroupHistory.Event parse(String member, String line) {
        String[] parts = line.split(" ", 3);
        return switch (parts[0]) {
            case "A" -> new GroupHistory.Assigned(member, partitions(parts[1]));
            case "R" -> new GroupHistory.Revoked(member, partitions(parts[1]));
            case "L" -> new GroupHistory.Lost(member, partitions(parts[1]));
            case "D" -> {
                String[] d = line.split(" ");
                yield new GroupHistory.Delivered(
                        member, Integer.parseInt(d[1]), Long.parseLong(d[2]), Long.parseLong(d[3]));
            }
            case "C" -> new GroupHistory.Committed(member, offsets(parts[1]));
            case "F" -> new GroupHistory.CommitFailed(member, offsets(parts[1]), parts.length > 2 ? parts[2] : "");
            default -> throw new IllegalStateException("unknown event line from " + member + ": " + line);
        };
    }

    static String format(GroupHistory.Event event) {
        return switch (event) {
            case GroupHistory.Assigned a -> "A " + join(a.partitions());
            case GroupHistory.Revoked r -> "R " + join(r.partitions());
            case GroupHistory.Lost l -> "L " + join(l.partitions());
            case GroupHistory.Delivered d -> "D " + d.partition() + " " + d.offset() + " " + d.value();
            case GroupHistory.Committed c -> "C " + join(c.offsets());
            case GroupHistory.CommitFailed f ->
                "F " + join(f.offsets()) + " " + f.error().replace('\n', ' ');
            case GroupHistory.Crashed c -> throw new IllegalArgumentException("a crash is not reported by the member");
        };
    }

    private static String join(Set<Integer> partitions) {
        return partitions.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static String join(Map<Integer, Long> offsets) {
        return offsets.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(","));
    }

    private static Set<Integer> partitions(String text) {
        return Arrays.stream(text.split(",")).map(Integer::valueOf).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Map<Integer, Long> offsets(String text) {
        Map<Integer, Long> offsets = new TreeMap<>();
        for (String entry : text.split(",")) {
            String[] kv = entry.split("=");
            offsets.put(Integer.valueOf(kv[0]), Long.valueOf(kv[1]));
        }
        return offsets;
    }

    /** One event line of the child, whole and at once (its threads share the stream). */
    private static void emit(PrintStream out, String line) {
        synchronized (out) {
            out.println(MARKER + line);
            out.flush();
        }
    }

    /** The child: {@code name bootstrapServers groupId topic protocol [instanceId]}. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(
                new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        // Keep the event stream clean: anything else printed goes to standard error.
        System.setOut(System.err);
        BlockingQueue<String> acks = new LinkedBlockingQueue<>();
        GroupMember[] member = new GroupMember[1];
        String instanceId = args.length > 5 ? args[5] : null;
        GroupMember.Protocol protocol = GroupMember.Protocol.valueOf(args[4]);
        member[0] = new GroupMember(args[0], args[1], args[2], instanceId, protocol, args[3], event -> {
            emit(out, format(event));
            if (isCallback(event)) {
                try {
                    String ack = acks.poll(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    if (!"ok".equals(ack)) {
                        throw new IllegalStateException("no acknowledgement of " + event + " from the test");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        });
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.equals("leave")) {
                        member[0].leave();
                    } else if (line.equals("hold")) {
                        member[0].holdBeforeNextCommit(() -> {
                            emit(out, "H");
                            // Until the test kills this process.
                            while (true) {
                                try {
                                    Thread.sleep(Long.MAX_VALUE);
                                } catch (InterruptedException e) {
                                    // still held
                                }
                            }
                        });
                    } else {
                        acks.add(line);
                    }
                }
            } catch (IOException e) {
                // the test is gone
            }
            // The test closed our input: it is gone, so leave.
            member[0].leave();
        });
        member[0].run();
        if (member[0].failure() != null) {
            member[0].failure().printStackTrace();
            System.exit(1);
        }
    }
}
