package io.tributary.coordinator.testing;

import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.springframework.test.context.DynamicPropertyRegistry;

/** Settings for coordinator processes started by {@code @SpringBootTest}: free ports, temporary data. */
public final class TestCoordinators {

    private TestCoordinators() {}

    /** A port free on the loopback address now. */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * Registers a one-voter coordinator on a free Raft port, the Kafka listener on port 0, and a new
     * temporary data directory, which it returns (delete it with {@link #deleteRecursively}).
     */
    public static Path oneVoter(DynamicPropertyRegistry registry, String dataDirPrefix) throws IOException {
        Path dataDir = Files.createTempDirectory(dataDirPrefix);
        int raftPort = freePort();
        registry.add("tributary.coordinator.data-dir", dataDir::toString);
        registry.add("tributary.coordinator.raft-port", () -> raftPort);
        registry.add("tributary.coordinator.peers", () -> "127.0.0.1:" + raftPort);
        registry.add("tributary.kafka.port", () -> 0);
        return dataDir;
    }

    /**
     * Waits (up to 20 s) until {@code node} leads and its image has the bootstrap records, as the
     * control plane requires before a broker registers.
     */
    public static void awaitReadyLeader(MetadataRaftNode node) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> node.isLeader()
                        && node.stateMachine().image().scramCredentials().bootstrapped());
    }

    /**
     * Deletes a directory and what is in it, best effort: the cached application context (and its
     * Raft voter) may still be running when a test class ends.
     */
    public static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        }
    }
}
