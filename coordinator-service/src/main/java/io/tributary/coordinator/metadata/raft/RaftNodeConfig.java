package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.metadata.MetadataLimits;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One metadata voter's configuration (the Spring edge builds it from {@code tributary.coordinator.*}).
 *
 * @param id this voter's index in {@code peers}
 * @param peers every voter's Raft address, in id order; 1 or 3 of them
 * @param bindAddress the address and port this voter's Netty transport binds (usually {@code
 *     peers[id]}; differs behind address translation)
 * @param storageDir where this voter keeps its Raft log and snapshots
 * @param snapshotThresholdEntries a snapshot is taken every this many applied log entries (default
 *     10,000: a restart replays at most that many commands, and a snapshot of a few thousand
 *     partitions is well under a megabyte)
 * @param logSegmentBytes the Raft log rolls to a new segment file at this size; closed segments
 *     older than the latest snapshot are deleted (default 8 MiB: a few segments bound the disk use
 *     of a log of small commands, and a follower that is further behind gets the snapshot instead)
 * @param rpcTimeoutMin the lower bound of the election timeout (default 150 ms; Ratis's own
 *     default, with the upper bound at twice this)
 * @param limits bounds checked on commands before they are appended
 * @param logFlush when an entry this voter appended counts as written: the acknowledgement a leader
 *     counts towards a commit, and so the durability of everything acknowledged to a client (default
 *     {@link LogFlush#FSYNC}; see {@link LogFlush} for what each choice may lose)
 */
public record RaftNodeConfig(
        int id,
        List<InetSocketAddress> peers,
        InetSocketAddress bindAddress,
        Path storageDir,
        long snapshotThresholdEntries,
        long logSegmentBytes,
        Duration rpcTimeoutMin,
        MetadataLimits limits,
        LogFlush logFlush) {

    /**
     * When a voter counts an entry of its Raft log as written (Ratis's {@code raft.server.log.*}
     * flush settings). A leader commits an entry once a majority of voters, itself included, counts
     * it written; only then is a client answered.
     *
     * <p>Ratis's third mode, {@code raft.server.log.async-flush.enabled}, is not offered: in Ratis
     * 3.3.0 it marks as flushed the last entry written when a force <em>completes</em> (entries
     * written during the force count as forced), and whether the force failed is not looked at, so
     * it promises less than {@link #FSYNC} without saying how much less.
     */
    public enum LogFlush {
        /**
         * Written once fsynced (Ratis's default: the log worker thread writes and forces the file,
         * then takes the next entries, which wait meanwhile; entries queued during a force go into
         * the next one). Nothing acknowledged is lost even if every voter loses power at once.
         */
        FSYNC,
        /**
         * Written once handed to the operating system ({@code write(2)}); the force follows at once
         * on its own thread, and the log worker does not wait for it ({@code
         * raft.server.log.unsafe-flush.enabled}). A killed coordinator process loses nothing (the
         * kernel holds the bytes); an operating system crash or power loss of a voter may lose
         * from its log the entries of the last moments (about one force: milliseconds). With 3
         * voters on separate machines an acknowledged entry is in the memory of at least two, so
         * it survives the loss of any one voter, machine and disk included (as Kafka's group state
         * in {@code __consumer_offsets}: replicated, not fsynced per write); it may be lost if two
         * voters crash with their operating systems within those moments, or one does and the
         * other voter that held the entry fails before it is forced. With 1 voter it is a single
         * Kafka broker's durability: a power loss may lose the last acknowledged commits,
         * generations and metadata changes. Kafka's own KRaft metadata log is fsynced, as {@link
         * #FSYNC}; here group state and cluster metadata share one log, so this choice applies to
         * both. A failed background force is not reported by Ratis (the next writes fail instead).
         */
        PAGE_CACHE
    }

    public static final long DEFAULT_SNAPSHOT_THRESHOLD_ENTRIES = 10_000;
    public static final long DEFAULT_LOG_SEGMENT_BYTES = 8L << 20;
    public static final Duration DEFAULT_RPC_TIMEOUT_MIN = Duration.ofMillis(150);

    public RaftNodeConfig {
        peers = List.copyOf(peers);
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(storageDir, "storageDir");
        Objects.requireNonNull(rpcTimeoutMin, "rpcTimeoutMin");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(logFlush, "logFlush");
        if (peers.size() != 1 && peers.size() != 3) {
            throw new IllegalArgumentException("a metadata group has 1 or 3 voters, got " + peers.size());
        }
        if (id < 0 || id >= peers.size()) {
            throw new IllegalArgumentException("voter id " + id + " is not an index into " + peers);
        }
        if (logSegmentBytes < 1024) {
            throw new IllegalArgumentException("logSegmentBytes must be 1024 or more, got " + logSegmentBytes);
        }
        if (snapshotThresholdEntries < 1) {
            throw new IllegalArgumentException("snapshotThresholdEntries must be 1 or more");
        }
    }

    /** The same config with another {@link LogFlush}. */
    public RaftNodeConfig withLogFlush(LogFlush flush) {
        return new RaftNodeConfig(
                id,
                peers,
                bindAddress,
                storageDir,
                snapshotThresholdEntries,
                logSegmentBytes,
                rpcTimeoutMin,
                limits,
                flush);
    }

    /** A config with the documented defaults for the bounds. */
    public static RaftNodeConfig withDefaults(int id, List<InetSocketAddress> peers, Path storageDir) {
        return new RaftNodeConfig(
                id,
                peers,
                peers.get(id),
                storageDir,
                DEFAULT_SNAPSHOT_THRESHOLD_ENTRIES,
                DEFAULT_LOG_SEGMENT_BYTES,
                DEFAULT_RPC_TIMEOUT_MIN,
                MetadataLimits.DEFAULTS,
                LogFlush.FSYNC);
    }
}
