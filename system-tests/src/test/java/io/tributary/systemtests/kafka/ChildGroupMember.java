package io.tributary.systemtests.kafka;

import io.tributary.common.testing.BackgroundFailures;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
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
 * </pre>
 *
 * A callback returns only after the parent has put the event into the {@link GroupHistory} and
 * answered {@code ok}: the event is in the shared log before the member can tell the coordinator
 * it gave a partition up, as for the members in the test's JVM. {@code leave} on stdin makes the
 * child close its consumer and exit.
 */
final class ChildGroupMember implements AutoCloseable {

    static final String MARKER = "@@ ";

    private final String name;
    private final Process process;
    private final BackgroundFailures.Task reader;

    private ChildGroupMember(String name, Process process, GroupHistory history, BackgroundFailures background) {
        this.name = name;
        this.process = process;
        this.reader = background.start("child-member-" + name, task -> read(history));
    }

    /**
     * Starts the child JVM; its standard error goes to {@code stderr}. The thread that reads its
     * events reports to {@code background} whatever ends it other than the child's end (a line it
     * cannot parse, say: the child would wait for an acknowledgement that never comes).
     */
    static ChildGroupMember start(
            String name,
            String bootstrapServers,
            String groupId,
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
                topic));
        Process process =
                new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        return new ChildGroupMember(name, process, history, background);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    /**
     * SIGKILL: no leave, no revocation, no commit. Returns once the process is gone and every line
     * it wrote is in the history, then logs the crash.
     */
    void crash(GroupHistory history) throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
        reader.join(Duration.ofSeconds(30));
        history.add(new GroupHistory.Crashed(name));
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }

    private void read(GroupHistory history) {
        try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                OutputStream acks = process.getOutputStream()) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith(MARKER)) {
                    continue;
                }
                GroupHistory.Event event = parse(name, line.substring(MARKER.length()));
                history.add(event);
                if (isCallback(event)) {
                    acks.write("ok\n".getBytes(StandardCharsets.UTF_8));
                    acks.flush();
                }
            }
        } catch (IOException e) {
            // the child is gone (killed): every line it flushed has been read
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

    /** The child: {@code name bootstrapServers groupId topic}. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(
                new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        // Keep the event stream clean: anything else printed goes to standard error.
        System.setOut(System.err);
        BlockingQueue<String> acks = new LinkedBlockingQueue<>();
        GroupMember[] member = new GroupMember[1];
        member[0] = new GroupMember(args[0], args[1], args[2], null, args[3], event -> {
            synchronized (out) {
                out.println(MARKER + format(event));
                out.flush();
            }
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
