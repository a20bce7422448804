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
 */
public record RaftNodeConfig(
        int id,
        List<InetSocketAddress> peers,
        InetSocketAddress bindAddress,
        Path storageDir,
        long snapshotThresholdEntries,
        long logSegmentBytes,
        Duration rpcTimeoutMin,
        MetadataLimits limits) {

    public static final long DEFAULT_SNAPSHOT_THRESHOLD_ENTRIES = 10_000;
    public static final long DEFAULT_LOG_SEGMENT_BYTES = 8L << 20;
    public static final Duration DEFAULT_RPC_TIMEOUT_MIN = Duration.ofMillis(150);

    public RaftNodeConfig {
        peers = List.copyOf(peers);
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(storageDir, "storageDir");
        Objects.requireNonNull(rpcTimeoutMin, "rpcTimeoutMin");
        Objects.requireNonNull(limits, "limits");
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
                MetadataLimits.DEFAULTS);
    }
}
