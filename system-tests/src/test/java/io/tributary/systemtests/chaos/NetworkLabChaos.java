package io.tributary.systemtests.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link NetworkLab} itself, with plain TCP listeners in its namespaces instead of a cluster
 * (seconds, not minutes): members reach each other and the test's JVM reaches them; a cut stops
 * the victim's traffic with the other members both ways but not with the root namespace; a heal
 * restores it; {@code close()} leaves no namespace, veth pair or bridge behind. Run by {@code
 * bin/chaos} with the scenarios (it needs root as they do, and fails saying so without it).
 */
class NetworkLabChaos {

    private static final int PORT = 7000;
    private static final Duration CONNECT = Duration.ofSeconds(2);

    private final List<Process> listeners = new ArrayList<>();

    @AfterEach
    void stopListeners() throws InterruptedException {
        for (Process listener : listeners) {
            listener.destroyForcibly();
            listener.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCutSeparatesTheVictimFromTheOtherMembersButNotFromTheClients() throws Exception {
        String tag;
        try (var lab = NetworkLab.create(List.of("a", "b", "c"))) {
            tag = lab.tag();
            for (String member : List.of("a", "b", "c")) {
                listen(lab, member);
            }
            awaitReachableFromRoot(lab, List.of("a", "b", "c"));
            assertThat(reaches(lab, "a", "b")).as("a -> b before the cut").isTrue();
            assertThat(reaches(lab, "b", "a")).as("b -> a before the cut").isTrue();

            lab.cut("a");

            assertThat(reaches(lab, "a", "b")).as("a -> b while a is cut").isFalse();
            assertThat(reaches(lab, "c", "a")).as("c -> a while a is cut").isFalse();
            assertThat(reaches(lab, "b", "c")).as("b -> c while a is cut").isTrue();
            assertThat(connects(lab.address("a")))
                    .as("root -> a while a is cut")
                    .isTrue();
            assertThat(connects(lab.address("b")))
                    .as("root -> b while a is cut")
                    .isTrue();

            lab.heal();

            assertThat(reaches(lab, "a", "b")).as("a -> b after the heal").isTrue();
            assertThat(reaches(lab, "c", "a")).as("c -> a after the heal").isTrue();
            stopListeners();
        }
        assertThat(run("ip", "netns", "list")).as("namespaces after close").doesNotContain(tag + "-");
        assertThat(run("ip", "-o", "link", "show")).as("links after close").doesNotContain(tag);
    }

    /** A TCP listener on {@code member}'s address and {@link #PORT}, in its namespace. */
    private void listen(NetworkLab lab, String member) throws IOException {
        listeners.add(python(
                        lab,
                        member,
                        "import socket\n"
                                + "s = socket.socket()\n"
                                + "s.bind(('%s', %d))\n".formatted(lab.address(member), PORT)
                                + "s.listen(16)\n"
                                + "while True:\n"
                                + "    c, _ = s.accept()\n"
                                + "    c.close()\n")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start());
    }

    private static void awaitReachableFromRoot(NetworkLab lab, List<String> members) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (String member : members) {
            while (!connects(lab.address(member))) {
                assertThat(System.nanoTime())
                        .as(member + "'s listener from the root namespace")
                        .isLessThan(deadline);
                Thread.sleep(100);
            }
        }
    }

    /** Whether a TCP connect from the root namespace (the test's JVM) succeeds. */
    private static boolean connects(String address) {
        try (var socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, PORT), (int) CONNECT.toMillis());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether a TCP connect from {@code from}'s namespace to {@code to}'s listener succeeds. */
    private static boolean reaches(NetworkLab lab, String from, String to) throws Exception {
        Process probe = python(
                        lab,
                        from,
                        "import socket\nsocket.create_connection(('%s', %d), timeout=%d).close()"
                                .formatted(lab.address(to), PORT, CONNECT.toSeconds()))
                .redirectErrorStream(true)
                .start();
        probe.getOutputStream().close();
        probe.getInputStream().readAllBytes();
        assertThat(probe.waitFor(30, TimeUnit.SECONDS)).as("probe finished").isTrue();
        return probe.exitValue() == 0;
    }

    /** python3 running {@code script} in {@code member}'s namespace ({@code ip netns exec}: same PID). */
    private static ProcessBuilder python(NetworkLab lab, String member, String script) {
        return new ProcessBuilder("ip", "netns", "exec", lab.namespace(member), "python3", "-c", script);
    }

    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return output;
    }
}
