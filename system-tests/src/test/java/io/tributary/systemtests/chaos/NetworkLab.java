package io.tributary.systemtests.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A private network on which a cluster's processes can be cut off one another while the test's
 * clients still reach every one of them, made with iproute2 only (no iptables): a Linux bridge
 * with a private /24, the test's JVM (and the processes left in the root namespace) on its first
 * address, and one network namespace per member ({@code coordinator-0}, {@code broker-0}...) with a
 * veth pair into the bridge and its own address. {@link #environment()} tells {@code
 * bin/tributary} to run each member in its namespace on its address ({@code TRIBUTARY_NETNS},
 * {@code TRIBUTARY_HOSTS}).
 *
 * <p>A cut ({@link #cut}) adds blackhole routes: in the victim's namespace one per other member,
 * and in every other member's namespace one to the victim. Packets between the victim and the
 * other members go nowhere in both directions (a connect fails, an established connection's
 * segments are dropped at the sender and retransmitted until {@link #heal} removes the routes);
 * the root namespace has no such route, so clients keep reaching the victim.
 *
 * <p>Names are unique per test JVM ({@code trl<pid in base 36>}, at most 15 characters for
 * interfaces), the /24 is one of {@code 10.200.0.0} to {@code 10.249.255.0} that this machine's
 * addresses and routes do not mention, chosen from the PID; so parallel runs do not collide. What
 * a killed run left behind (its PID gone) is removed first. {@link #close()} (also run from a
 * shutdown hook) removes everything this lab made, whatever state it is in.
 *
 * <p>Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and iproute2; without them {@link #create}
 * fails with a message saying so, never skips.
 */
final class NetworkLab implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NetworkLab.class);
    private static final String PREFIX = "trl";
    private static final Pattern LEFTOVER_NETNS = Pattern.compile("^" + PREFIX + "([0-9a-z]+)-\\S+");
    private static final Pattern LEFTOVER_BRIDGE = Pattern.compile("^\\d+: (" + PREFIX + "([0-9a-z]+)br)[:@]");
    /** Host part of the first member's address; members follow in order. */
    private static final int FIRST_MEMBER = 10;

    /** One member: its namespace, the bridge end of its veth pair, its address. */
    record Member(String name, String namespace, String veth, String address) {}

    private final String tag;
    private final String bridge;
    private final String subnet;
    private final Map<String, Member> members = new LinkedHashMap<>();
    /** Blackhole routes in place: namespace -> destination address. */
    private final List<Map.Entry<String, String>> blackholes = new ArrayList<>();

    private final Thread shutdownHook;
    private boolean closed;

    private NetworkLab(String tag, String subnet) {
        this.tag = tag;
        this.bridge = tag + "br";
        this.subnet = subnet;
        this.shutdownHook = new Thread(this::close, tag + "-network-lab-cleanup");
    }

    /**
     * Builds the bridge and one namespace per name.
     *
     * @throws AssertionError naming what is missing when this machine cannot (not root, no
     *     network namespaces, no iproute2)
     */
    static NetworkLab create(List<String> names) {
        String tag = PREFIX + Long.toString(ProcessHandle.current().pid(), 36);
        try {
            run("ip", "-V");
        } catch (RuntimeException e) {
            throw new AssertionError("NetworkLab needs iproute2's ip (Debian package iproute2): " + e.getMessage(), e);
        }
        removeLeftovers();
        var lab = new NetworkLab(tag, chooseSubnet());
        Runtime.getRuntime().addShutdownHook(lab.shutdownHook);
        try {
            lab.build(names);
            return lab;
        } catch (RuntimeException e) {
            lab.close();
            throw new AssertionError(
                    "could not build the network lab (bridge, network namespaces, veth pairs); it needs root"
                            + " with CAP_NET_ADMIN and CAP_SYS_ADMIN: "
                            + e.getMessage(),
                    e);
        }
    }

    private void build(List<String> names) {
        // Same names as ours can only be a dead run's of this PID.
        runQuietly("ip", "link", "del", bridge);
        run("ip", "link", "add", bridge, "type", "bridge");
        run("ip", "addr", "add", clientAddress() + "/24", "dev", bridge);
        run("ip", "link", "set", bridge, "up");
        int index = 0;
        for (String name : names) {
            var member = new Member(name, tag + "-" + name, tag + "v" + index, subnet + "." + (FIRST_MEMBER + index));
            members.put(name, member);
            index++;
            runQuietly("ip", "netns", "del", member.namespace());
            runQuietly("ip", "link", "del", member.veth());
            run("ip", "netns", "add", member.namespace());
            run("ip", "-n", member.namespace(), "link", "set", "lo", "up");
            run(
                    "ip",
                    "link",
                    "add",
                    member.veth(),
                    "type",
                    "veth",
                    "peer",
                    "name",
                    "eth0",
                    "netns",
                    member.namespace());
            run("ip", "link", "set", member.veth(), "master", bridge);
            run("ip", "link", "set", member.veth(), "up");
            run("ip", "-n", member.namespace(), "addr", "add", member.address() + "/24", "dev", "eth0");
            run("ip", "-n", member.namespace(), "link", "set", "eth0", "up");
        }
        log.info("network lab {}: bridge {} at {}/24, members {}", tag, bridge, clientAddress(), members.values());
    }

    /** The address of the root namespace (the test's clients) on the bridge. */
    String clientAddress() {
        return subnet + ".1";
    }

    /** {@code name}'s address. */
    String address(String name) {
        return member(name).address();
    }

    /** {@code name}'s network namespace. */
    String namespace(String name) {
        return member(name).namespace();
    }

    /** What every name this lab made starts with ({@code trl<pid in base 36>}). */
    String tag() {
        return tag;
    }

    /** {@code TRIBUTARY_HOSTS} and {@code TRIBUTARY_NETNS} for {@code bin/tributary}. */
    Map<String, String> environment() {
        return Map.of(
                "TRIBUTARY_HOSTS",
                members.values().stream().map(m -> m.name() + "=" + m.address()).collect(Collectors.joining(" ")),
                "TRIBUTARY_NETNS",
                members.values().stream()
                        .map(m -> m.name() + "=" + m.namespace())
                        .collect(Collectors.joining(" ")));
    }

    /** Cuts {@code name} off every other member, both ways; the root namespace still reaches it. */
    synchronized void cut(String name) {
        Member victim = member(name);
        for (Member other : members.values()) {
            if (!other.equals(victim)) {
                blackhole(victim.namespace(), other.address());
                blackhole(other.namespace(), victim.address());
            }
        }
        log.info("network lab {}: {} cut off from {}", tag, name, members.keySet());
    }

    /** Removes every cut. */
    synchronized void heal() {
        for (var route : List.copyOf(blackholes)) {
            run("ip", "-n", route.getKey(), "route", "del", "blackhole", route.getValue() + "/32");
            blackholes.remove(route);
        }
        log.info("network lab {}: healed", tag);
    }

    private void blackhole(String namespace, String address) {
        var route = Map.entry(namespace, address);
        if (!blackholes.contains(route)) {
            run("ip", "-n", namespace, "route", "add", "blackhole", address + "/32");
            blackholes.add(route);
        }
    }

    private Member member(String name) {
        Member member = members.get(name);
        if (member == null) {
            throw new IllegalArgumentException(name + " is not in the network lab " + members.keySet());
        }
        return member;
    }

    /**
     * Removes the namespaces, veth pairs and the bridge. Call it after the processes in the
     * namespaces have stopped (a namespace outlives its name while a process is in it).
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // Running from the hook itself.
        }
        blackholes.clear();
        for (Member member : members.values()) {
            runQuietly("ip", "netns", "del", member.namespace());
            runQuietly("ip", "link", "del", member.veth());
        }
        runQuietly("ip", "link", "del", bridge);
        log.info("network lab {}: removed", tag);
    }

    /** Namespaces and bridges named by a NetworkLab of a process that no longer exists. */
    private static void removeLeftovers() {
        for (String line : run("ip", "netns", "list").split("\n")) {
            Matcher m = LEFTOVER_NETNS.matcher(line.strip());
            if (m.find() && isGone(m.group(1))) {
                String namespace = line.strip().split("\\s+")[0];
                log.warn("removing the network namespace {} that a dead test run left", namespace);
                runQuietly("ip", "netns", "del", namespace);
            }
        }
        for (String line : run("ip", "-o", "link", "show", "type", "bridge").split("\n")) {
            Matcher m = LEFTOVER_BRIDGE.matcher(line);
            if (m.find() && isGone(m.group(2))) {
                log.warn("removing the bridge {} that a dead test run left", m.group(1));
                runQuietly("ip", "link", "del", m.group(1));
            }
        }
    }

    private static boolean isGone(String pidBase36) {
        try {
            return ProcessHandle.of(Long.parseLong(pidBase36, 36)).isEmpty();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** A /24 in 10.200-249.x that no address or route of this machine mentions, starting from the PID. */
    private static String chooseSubnet() {
        String used = run("ip", "-4", "-o", "addr", "show") + "\n" + run("ip", "-4", "route", "show", "table", "all");
        int start = (int) (ProcessHandle.current().pid() % (50 * 256));
        for (int i = 0; i < 50 * 256; i++) {
            int n = (start + i) % (50 * 256);
            String subnet = "10.%d.%d".formatted(200 + n / 256, n % 256);
            if (!used.contains(" " + subnet + ".")
                    && !used.contains("\n" + subnet + ".")
                    && !used.startsWith(subnet + ".")) {
                return subnet;
            }
        }
        throw new IllegalStateException("no free /24 in 10.200.0.0/11");
    }

    private static String run(String... command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in 30 s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(
                        "%s exited %d: %s".formatted(String.join(" ", command), process.exitValue(), output.strip()));
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
    }

    /** For removals whose object may not exist. */
    private static void runQuietly(String... command) {
        try {
            run(command);
        } catch (RuntimeException e) {
            log.debug("{}", e.getMessage());
        }
    }
}
