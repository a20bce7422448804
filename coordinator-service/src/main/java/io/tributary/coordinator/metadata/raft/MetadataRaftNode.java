package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.metadata.CommandValidator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * One voter of the metadata Raft group: a Ratis server on the Netty transport with a
 * {@link MetadataStateMachine}. The group id is fixed (derived from {@link #GROUP_NAME}); peer ids
 * are {@code c0}, {@code c1}, {@code c2} by index in the configured peers.
 *
 * <p>Thread-safety: start and close from one thread; the query methods from any.
 */
public final class MetadataRaftNode implements AutoCloseable {

    /** The name the metadata group's id is derived from. */
    public static final String GROUP_NAME = "tributary-metadata";

    private final RaftNodeConfig config;
    private final RaftTransport transport;
    private final RaftGroup group;
    private final MetadataStateMachine stateMachine;
    private final RaftServer server;
    /** The client id of the writes this voter submits to itself ({@link #submitIfLeader}). */
    private final ClientId localClientId = ClientId.randomId();

    private final AtomicLong localCallIds = new AtomicLong();

    /** A voter on the plaintext transport ({@link RaftTransport#PLAIN}). */
    public MetadataRaftNode(RaftNodeConfig config) {
        this(config, RaftTransport.PLAIN);
    }

    /** A voter on {@code transport}, which every voter of the group and their clients share. */
    public MetadataRaftNode(RaftNodeConfig config, RaftTransport transport) {
        this.config = config;
        this.transport = Objects.requireNonNull(transport, "transport");
        this.group = group(config.peers());
        this.stateMachine = new MetadataStateMachine(new CommandValidator(config.limits()));
        RaftProperties properties = new RaftProperties();
        Parameters parameters = new Parameters();
        transport.configureServer(properties, parameters, config.bindAddress());
        RaftServerConfigKeys.setStorageDir(
                properties, List.of(config.storageDir().toFile()));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, config.snapshotThresholdEntries());
        // No snapshot on stop: a restart replays at most snapshotThresholdEntries entries anyway, and
        // a stop that writes a file is a slower stop.
        RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(properties, false);
        // Keep the two newest snapshots; delete closed log segments the newest one covers. A
        // follower that needs a deleted entry gets the snapshot file instead.
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
        RaftServerConfigKeys.Log.setPurgeGap(properties, (int)
                Math.min(config.snapshotThresholdEntries(), RaftServerConfigKeys.Log.PURGE_GAP_DEFAULT));
        SizeInBytes segment = SizeInBytes.valueOf(config.logSegmentBytes());
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, segment);
        if (config.logSegmentBytes() < RaftServerConfigKeys.Log.PREALLOCATED_SIZE_DEFAULT.getSize()) {
            RaftServerConfigKeys.Log.setPreallocatedSize(properties, segment);
        }
        switch (config.logFlush()) {
            case FSYNC -> {}
            case PAGE_CACHE -> RaftServerConfigKeys.Log.setUnsafeFlushEnabled(properties, true);
        }
        long minMs = config.rpcTimeoutMin().toMillis();
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, TimeDuration.valueOf(minMs, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, TimeDuration.valueOf(2 * minMs, TimeUnit.MILLISECONDS));
        // A leader that stepped down because it lost its majority's heartbeats stands again after one
        // longest election timeout, not Ratis's 10 s: when the other survivor's log is behind (the new
        // leader's first entry had not reached it) it cannot win, and the groups had no coordinator
        // for those 10 s (bin/bench-groups' failover case: a 26 s stall and a rebalance).
        RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(
                properties, TimeDuration.valueOf(2 * minMs, TimeUnit.MILLISECONDS));
        try {
            this.server = RaftServer.newBuilder()
                    .setServerId(peerId(config.id()))
                    .setGroup(group)
                    .setProperties(properties)
                    .setParameters(parameters)
                    .setStateMachine(stateMachine)
                    .setOption(startupOption(config, group))
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build metadata voter " + config.id(), e);
        }
    }

    /** Recover an existing group directory; format a new one (Ratis refuses to format over one). */
    private static RaftStorage.StartupOption startupOption(RaftNodeConfig config, RaftGroup group) {
        Path groupDir = config.storageDir().resolve(group.getGroupId().getUuid().toString());
        return Files.isDirectory(groupDir) ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT;
    }

    /** The metadata Raft group of these voters. */
    public static RaftGroup group(List<InetSocketAddress> peers) {
        List<RaftPeer> raftPeers = new ArrayList<>();
        for (int i = 0; i < peers.size(); i++) {
            InetSocketAddress a = peers.get(i);
            raftPeers.add(RaftPeer.newBuilder()
                    .setId(peerId(i))
                    .setAddress(a.getHostString() + ":" + a.getPort())
                    .build());
        }
        UUID uuid = UUID.nameUUIDFromBytes(GROUP_NAME.getBytes(StandardCharsets.UTF_8));
        return RaftGroup.valueOf(RaftGroupId.valueOf(uuid), raftPeers);
    }

    static RaftPeerId peerId(int index) {
        return RaftPeerId.valueOf("c" + index);
    }

    /** Starts the voter (it recovers its snapshot and log, then joins the group). */
    public void start() throws IOException {
        server.start();
    }

    /** The transport of the Raft port, which this process's {@link MetadataClient} uses too. */
    public RaftTransport transport() {
        return transport;
    }

    public int id() {
        return config.id();
    }

    /** What this voter was configured with (its limits too). */
    public RaftNodeConfig config() {
        return config;
    }

    public RaftGroup group() {
        return group;
    }

    public MetadataStateMachine stateMachine() {
        return stateMachine;
    }

    private Optional<DivisionInfo> info() {
        try {
            return Optional.of(server.getDivision(group.getGroupId()).getInfo());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether this voter is the leader and ready to take writes. */
    public boolean isLeader() {
        return info().map(DivisionInfo::isLeaderReady).orElse(false);
    }

    /** This voter's Raft role, if it is running. */
    public Optional<RaftPeerRole> role() {
        return info().map(DivisionInfo::getCurrentRole);
    }

    /** The group's leader as this voter knows it ({@code c0}, {@code c1}...), if it knows one. */
    public Optional<String> leaderId() {
        return info().map(DivisionInfo::getLeaderId).map(Object::toString);
    }

    /** The index (in the configured peers) of the group's leader as this voter knows it, if it knows one. */
    public Optional<Integer> leaderIndex() {
        return leaderId().flatMap(id -> {
            for (int i = 0; i < config.peers().size(); i++) {
                if (peerId(i).toString().equals(id)) {
                    return Optional.of(i);
                }
            }
            return Optional.empty();
        });
    }

    /** This voter's current Raft term, or -1 if it is not running. */
    public long currentTerm() {
        return info().map(DivisionInfo::getCurrentTerm).orElse(-1L);
    }

    /** This voter's commit index, or -1 if it is not running. */
    public long commitIndex() {
        try {
            return server.getDivision(group.getGroupId()).getRaftLog().getLastCommittedIndex();
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * Submits a write to this voter's own Raft division, in this process (no transport hop, no
     * serialization), if this voter is the leader ready for writes. The request is Ratis's own
     * client request, under this voter's client id and a new call id, so the leader's retry cache
     * and its reply (committed and applied, or the state machine's refusal, or a not-leader error
     * when leadership moved meanwhile) are what a remote client would get.
     *
     * @param timeoutMs how long the leader may take before it answers with a timeout
     * @return the reply's future, or empty when this voter does not lead
     */
    Optional<CompletableFuture<RaftClientReply>> submitIfLeader(Message message, long timeoutMs) {
        if (!isLeader()) {
            return Optional.empty();
        }
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(localClientId)
                .setServerId(server.getId())
                .setGroupId(group.getGroupId())
                .setCallId(localCallIds.incrementAndGet())
                .setMessage(message)
                .setType(RaftClientRequest.writeRequestType())
                .setTimeoutMs(timeoutMs)
                .build();
        try {
            return Optional.of(server.submitClientRequestAsync(request));
        } catch (IOException e) {
            return Optional.of(CompletableFuture.failedFuture(e));
        }
    }

    /** Takes a snapshot now (tests, and operators before maintenance); returns its log index. */
    public long takeSnapshot() throws IOException {
        return stateMachine.takeSnapshot();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
