package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import io.tributary.coordinator.metadata.raft.RaftNodeConfig.LogFlush;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.apache.ratis.util.FileUtils;

/**
 * A timing harness (not a test: nothing is asserted on time) for one metadata Raft write: a classic
 * group's generation ({@link StoreClassicGroup}, what a SyncGroup waits for) written by a {@link
 * MetadataClient} through the Netty transport (what the coordinator did before) and in-process to
 * the leader's own division, on 1 and 3 voters in this JVM (127.0.0.1), for each {@link LogFlush}.
 * Each case prints the median, p99 and mean latency of writes made one at a time, and of writes made
 * by {@code concurrency} threads at once (each thread's next write waits for its previous one).
 *
 * <p>Run (after {@code test-compile}): {@code java -cp <test classpath>
 * io.tributary.coordinator.metadata.raft.RaftWriteLatency [writes] [concurrency] [storage dir]}
 * (defaults 400 writes, 8 threads, a new directory under {@code java.io.tmpdir}).
 */
public final class RaftWriteLatency {

    private static final int WARMUP_WRITES = 200;

    private RaftWriteLatency() {}

    public static void main(String[] args) throws Exception {
        int writes = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        int concurrency = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        Path root = args.length > 2
                ? Files.createDirectories(Path.of(args[2]))
                : Files.createTempDirectory("raft-write-latency");
        System.out.printf(
                Locale.ROOT,
                "%-7s %-12s %-10s %-11s %8s %8s %8s%n",
                "voters",
                "flush",
                "path",
                "writers",
                "p50 ms",
                "p99 ms",
                "mean ms");
        try {
            for (int voters : new int[] {1, 3}) {
                for (LogFlush flush : LogFlush.values()) {
                    Path dir = root.resolve(voters + "-" + flush);
                    try (Cluster cluster = new Cluster(dir, voters, flush)) {
                        cluster.measure(writes, concurrency);
                    }
                }
            }
        } finally {
            FileUtils.deleteFully(root);
        }
        // Ratis leaves non-daemon threads behind for a moment after close.
        System.exit(0);
    }

    /** 1 or 3 voters, a client through the transport and one in-process to the leader. */
    private static final class Cluster implements AutoCloseable {
        private final int voters;
        private final LogFlush flush;
        private final MetadataRaftNode[] nodes;
        private final MetadataClient remote;
        private final MetadataClient inProcess;

        Cluster(Path dir, int voters, LogFlush flush) throws IOException {
            this.voters = voters;
            this.flush = flush;
            List<InetSocketAddress> peers = new ArrayList<>();
            for (int i = 0; i < voters; i++) {
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    peers.add(new InetSocketAddress("127.0.0.1", s.getLocalPort()));
                }
            }
            nodes = new MetadataRaftNode[voters];
            for (int i = 0; i < voters; i++) {
                nodes[i] = new MetadataRaftNode(RaftNodeConfig.withDefaults(i, peers, dir.resolve("c" + i))
                        .withLogFlush(flush));
                nodes[i].start();
            }
            MetadataRaftNode leader = awaitLeader();
            remote = new MetadataClient(leader.group());
            inProcess = new MetadataClient(leader, MetadataClient.WriteObserver.NONE);
        }

        private MetadataRaftNode awaitLeader() {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (MetadataRaftNode node : nodes) {
                    if (node.isLeader()) {
                        return node;
                    }
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            throw new IllegalStateException("no leader");
        }

        void measure(int writes, int concurrency) throws Exception {
            for (MetadataClient client : new MetadataClient[] {remote, inProcess}) {
                String path = client == remote ? "netty" : "in-process";
                time(client, WARMUP_WRITES, 1);
                print(path, 1, time(client, writes, 1));
                print(path, concurrency, time(client, writes, concurrency));
            }
        }

        private void print(String path, int writers, long[] nanos) {
            Arrays.sort(nanos);
            System.out.printf(
                    Locale.ROOT,
                    "%-7d %-12s %-10s %-11d %8.2f %8.2f %8.2f%n",
                    voters,
                    flush,
                    path,
                    writers,
                    nanos[nanos.length / 2] / 1e6,
                    nanos[(int) Math.min(nanos.length - 1, Math.ceil(nanos.length * 0.99) - 1)] / 1e6,
                    Arrays.stream(nanos).average().orElse(0) / 1e6);
        }

        /** Each write's latency, {@code writes} in all by {@code writers} threads. */
        private static long[] time(MetadataClient client, int writes, int writers) throws Exception {
            long[] nanos = new long[writes];
            ExecutorService pool = Executors.newFixedThreadPool(writers);
            try {
                List<CompletableFuture<Void>> done = IntStream.range(0, writers)
                        .mapToObj(w -> CompletableFuture.runAsync(
                                () -> {
                                    for (int i = w; i < writes; i += writers) {
                                        StoreClassicGroup command = new StoreClassicGroup(
                                                Fixtures.classicGeneration("g" + w, i + 1, "m1", "m2", "m3"));
                                        long started = System.nanoTime();
                                        try {
                                            client.submitForIndex(command);
                                        } catch (IOException e) {
                                            throw new UncheckedIOException(e);
                                        }
                                        nanos[i] = System.nanoTime() - started;
                                    }
                                },
                                pool))
                        .toList();
                done.forEach(CompletableFuture::join);
            } finally {
                pool.shutdown();
            }
            return nanos;
        }

        @Override
        public void close() throws IOException {
            inProcess.close();
            remote.close();
            for (MetadataRaftNode node : nodes) {
                node.close();
            }
        }
    }
}
