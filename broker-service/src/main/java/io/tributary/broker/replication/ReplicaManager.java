package io.tributary.broker.replication;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataListener;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.RetentionResult;
import io.tributary.broker.log.RollFlusher;
import io.tributary.broker.log.cleaner.CleanerThread;
import io.tributary.broker.log.cleaner.LogCleaner;
import io.tributary.broker.log.index.IndexStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition replicas of this broker, kept in step with the cluster image.
 *
 * <p>On every image ({@link #onImage}, on the metadata follower's thread): for every partition whose
 * replicas include this broker, opens its log if needed (the directory {@code
 * <data>/<topic>-<partition>}), and gives its {@link Partition} the new leader, epochs, ISR,
 * {@code min.insync.replicas} and log config; closes the logs of partitions no longer assigned
 * here; and for a topic that is gone (absent from the image, or present under a new topic id)
 * closes its logs, renames each directory to {@code <topic>-<partition>.<topic id>-delete} at once
 * (so a re-created topic of the same name gets a fresh directory) and deletes the files and the
 * index entries on the delete executor, off the metadata thread. Directories ending in {@code
 * -delete} left by a crash are deleted at construction. Removal listeners ({@link
 * #addRemovalListener}, the log cleaner) are told of each replica that left.
 *
 * <h2>Directory marker</h2>
 *
 * <p>Each partition directory holds {@code partition.metadata}, as in Kafka: the text {@code
 * "version: 0\ntopic_id: <topic id, base64url>\n"} (UTF-8). A directory whose marker names another
 * topic id holds a deleted topic of the same name (deleted while this broker was down): it is
 * renamed for deletion before the new topic's log opens. A marker that cannot be read keeps the
 * replica offline (logged), its data untouched. A directory without a marker is taken as the
 * image's topic's and gets one.
 *
 * <p>Thread-safety: {@link #onImage} and {@link #close} are serialised on this object; lookups
 * ({@link #partition}) are lock-free and may run concurrently from request threads.
 */
public final class ReplicaManager implements MetadataListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicaManager.class);

    static final String METADATA_FILE = "partition.metadata";
    static final String DELETE_SUFFIX = "-delete";

    private final ReplicaManagerConfig config;
    private final IndexStore store;
    private final InstantSource clock;
    private final Executor deleteExecutor;
    private final RollFlusher rollFlusher;
    private final ConcurrentHashMap<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private volatile ReplicationListener replication = ReplicationListener.NONE;
    private final List<Consumer<TopicIdPartition>> removalListeners = new CopyOnWriteArrayList<>();
    private boolean closed;

    /**
     * Told, on the metadata thread, of the replicas after every image (the follower fetchers
     * follow it), and, on request threads, of followers that may join an ISR (the ISR manager
     * proposes it).
     */
    public interface ReplicationListener {

        /** The replicas after {@code image}; called at the end of every {@link #onImage}. */
        void replicasChanged(ClusterImage image, Collection<Partition> replicas);

        /** A follower outside {@code partition}'s ISR fetched up to its high watermark. */
        void followerMayJoinIsr(Partition partition, int replicaId);

        ReplicationListener NONE = new ReplicationListener() {
            @Override
            public void replicasChanged(ClusterImage image, Collection<Partition> replicas) {}

            @Override
            public void followerMayJoinIsr(Partition partition, int replicaId) {}
        };
    }

    /**
     * Adds a listener told, on the metadata thread, of every replica that leaves this broker (its
     * topic deleted or re-created, or the partition reassigned away), after its log closed: the log
     * cleaner forgets it. Not told at {@link #close}.
     */
    public void addRemovalListener(Consumer<TopicIdPartition> listener) {
        removalListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Sets the replication listener (before the first image). */
    public void setReplicationListener(ReplicationListener listener) {
        this.replication = Objects.requireNonNull(listener, "listener");
    }

    public ReplicaManager(ReplicaManagerConfig config, IndexStore store, InstantSource clock, Executor deleteExecutor) {
        this.config = Objects.requireNonNull(config, "config");
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.deleteExecutor = Objects.requireNonNull(deleteExecutor, "deleteExecutor");
        try {
            Files.createDirectories(config.dataDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + config.dataDir(), e);
        }
        deleteLeftovers();
        // last, so that a constructor failing above leaves no flusher thread behind
        this.rollFlusher = new RollFlusher(config.rollFlushQueue());
    }

    public int brokerId() {
        return config.brokerId();
    }

    /** The replica of {@code topic}'s partition {@code index} on this broker, if it holds one. */
    public Optional<Partition> partition(String topic, int index) {
        return Optional.ofNullable(partitions.get(new TopicPartition(topic, index)));
    }

    /** Every replica on this broker. */
    public Collection<Partition> partitions() {
        return List.copyOf(partitions.values());
    }

    /** How many replicas on this broker have {@code role}. */
    public long partitionCount(Partition.Role role) {
        return partitions.values().stream().filter(p -> p.role() == role).count();
    }

    /** Partitions this broker leads whose ISR is smaller than their replica set. */
    public long underReplicatedCount() {
        return partitions.values().stream().filter(Partition::isUnderReplicated).count();
    }

    @Override
    public synchronized void onImage(ClusterImage previous, ClusterImage next) {
        if (closed) {
            return;
        }
        // Gone first: a re-created topic of the same name must find its directory free.
        for (Map.Entry<TopicPartition, Partition> entry : List.copyOf(partitions.entrySet())) {
            TopicPartition tp = entry.getKey();
            Partition partition = entry.getValue();
            Optional<TopicInfo> topic = next.topic(tp.topic());
            boolean deleted = topic.isEmpty()
                    || !topic.get().id().equals(partition.topicIdPartition().topicId())
                    || topic.get().partition(tp.partition()).isEmpty();
            if (deleted) {
                partitions.remove(tp);
                partition.close();
                scheduleDelete(partition.topicIdPartition(), partition.log().directory());
                removed(partition.topicIdPartition());
            } else if (!topic.get().partition(tp.partition()).get().replicas().contains(config.brokerId())) {
                partitions.remove(tp);
                log.info("{}: no longer assigned to broker {}, closing its log", tp, config.brokerId());
                partition.close();
                removed(partition.topicIdPartition());
            }
        }
        for (TopicInfo topic : next.topics().values()) {
            LogConfig logConfig = LogConfigs.of(config.defaultLogConfig(), topic.configs());
            int minIsr = LogConfigs.minInsyncReplicas(config.defaultMinInsyncReplicas(), topic.configs());
            for (PartitionInfo info : topic.partitions()) {
                if (!info.replicas().contains(config.brokerId())) {
                    continue;
                }
                TopicPartition tp = new TopicPartition(topic.name(), info.partition());
                Partition existing = partitions.get(tp);
                if (existing == null) {
                    try {
                        partitions.put(tp, open(new TopicIdPartition(topic.id(), tp), logConfig, info, minIsr));
                    } catch (RuntimeException e) {
                        // One unreadable replica must not keep every other from following metadata.
                        log.error("{}: cannot open the log; the partition stays offline on this broker", tp, e);
                    }
                } else {
                    existing.log().updateConfig(logConfig);
                    existing.update(info, minIsr);
                }
            }
        }
        try {
            replication.replicasChanged(next, partitions());
        } catch (RuntimeException e) {
            log.error("Replication listener failed on image {}", next.version(), e);
        }
    }

    private void removed(TopicIdPartition id) {
        for (Consumer<TopicIdPartition> listener : removalListeners) {
            try {
                listener.accept(id);
            } catch (RuntimeException e) {
                log.error("{}: removal listener failed", id, e);
            }
        }
    }

    private Partition open(TopicIdPartition id, LogConfig logConfig, PartitionInfo info, int minIsr) {
        Path dir = config.dataDir().resolve(id.topic() + "-" + id.partition());
        Path marker = dir.resolve(METADATA_FILE);
        try {
            if (Files.exists(marker)) {
                Optional<Uuid> onDisk = readMarker(marker);
                if (onDisk.isEmpty()) {
                    // Never guess whose data it is: leave it to an operator, keep the replica offline.
                    throw new IllegalStateException(marker + " is unreadable; not opening " + dir);
                }
                if (!onDisk.get().equals(id.topicId())) {
                    log.warn(
                            "{}: directory {} holds topic id {}, not {}: a deleted topic of the same name; deleting it",
                            id,
                            dir,
                            onDisk.get(),
                            id.topicId());
                    scheduleDelete(new TopicIdPartition(onDisk.get(), id.topicPartition()), dir);
                }
            }
            Files.createDirectories(dir);
            if (!Files.exists(marker)) {
                Files.writeString(marker, "version: 0\ntopic_id: " + id.topicId() + "\n", StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dir, e);
        }
        PartitionLog partitionLog =
                PartitionLog.open(config.dataDir(), id, logConfig, config.producerState(), store, clock, rollFlusher);
        log.info(
                "{}: opened as {} (leader {}, epoch {}), log [{}, {})",
                id,
                info.leader() == config.brokerId() ? "leader" : "follower",
                info.leader(),
                info.leaderEpoch(),
                partitionLog.logStartOffset(),
                partitionLog.logEndOffset());
        return new Partition(
                id,
                partitionLog,
                config.brokerId(),
                info,
                minIsr,
                clock,
                (partition, replicaId) -> replication.followerMayJoinIsr(partition, replicaId));
    }

    static Optional<Uuid> readMarker(Path marker) {
        try {
            for (String line : Files.readAllLines(marker, StandardCharsets.UTF_8)) {
                if (line.startsWith("topic_id:")) {
                    return Optional.of(
                            Uuid.fromString(line.substring("topic_id:".length()).trim()));
                }
            }
            return Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Renames {@code dir} to {@code <dir>.<topic id>-delete} now, and deletes it and (when {@code id}
     * is known) its index entries on the delete executor.
     */
    private void scheduleDelete(TopicIdPartition id, Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        String suffix = (id == null ? Uuid.randomUuid() : id.topicId()) + DELETE_SUFFIX;
        Path target = dir.resolveSibling(dir.getFileName() + "." + suffix);
        try {
            Files.move(dir, target);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rename " + dir + " for deletion", e);
        }
        log.info("{}: deleting the replica's data ({})", id == null ? dir : id, target);
        Runnable task = () -> deleteNow(id, target);
        try {
            deleteExecutor.execute(task);
        } catch (RejectedExecutionException e) {
            log.warn("{}: delete executor refused; the next start deletes {}", id, target);
        }
    }

    private void deleteNow(TopicIdPartition id, Path dir) {
        try {
            if (id != null) {
                store.partition(id.topicId(), id.partition()).deleteAll();
            }
            deleteRecursively(dir);
            log.info("Deleted {}", dir);
        } catch (RuntimeException | IOException e) {
            log.warn("Could not delete {}; the next start retries: {}", dir, e.toString());
        }
    }

    /** Deletes {@code *-delete} directories a crash or shutdown left behind, with their index entries. */
    private void deleteLeftovers() {
        List<Path> leftovers;
        try (Stream<Path> files = Files.list(config.dataDir())) {
            leftovers = files.filter(p -> p.getFileName().toString().endsWith(DELETE_SUFFIX))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + config.dataDir(), e);
        }
        for (Path dir : leftovers) {
            Optional<TopicIdPartition> id = parseDeleteDir(dir.getFileName().toString());
            deleteExecutor.execute(() -> deleteNow(id.orElse(null), dir));
        }
    }

    /** Parses {@code <topic>-<partition>.<topic id>-delete}. */
    static Optional<TopicIdPartition> parseDeleteDir(String name) {
        if (!name.endsWith(DELETE_SUFFIX)) {
            return Optional.empty();
        }
        String stem = name.substring(0, name.length() - DELETE_SUFFIX.length());
        int dot = stem.lastIndexOf('.');
        if (dot < 0) {
            return Optional.empty();
        }
        String tp = stem.substring(0, dot);
        int dash = tp.lastIndexOf('-');
        if (dash < 0) {
            return Optional.empty();
        }
        try {
            Uuid topicId = Uuid.fromString(stem.substring(dot + 1));
            int partition = Integer.parseInt(tp.substring(dash + 1));
            return Optional.of(new TopicIdPartition(topicId, partition, tp.substring(0, dash)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(dir)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path path : paths) {
            Files.deleteIfExists(path);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Background work (called by a scheduler; each bounded)

    /**
     * One retention run: at most {@code maxSegmentsPerPartition} segments deleted per partition.
     *
     * @return segments deleted in total
     */
    public int runRetention(int maxSegmentsPerPartition) {
        int deleted = 0;
        for (Partition partition : partitions()) {
            try {
                RetentionResult result = partition.log().deleteExpiredSegments(maxSegmentsPerPartition);
                deleted += result.segmentsDeleted();
                if (result.segmentsDeleted() > 0) {
                    partition.signalChange();
                }
            } catch (IllegalStateException e) {
                // Closed concurrently by a metadata change.
                log.debug("{}: skipped by retention: {}", partition, e.getMessage());
            }
            try {
                partition.log().expireProducers();
            } catch (IllegalStateException e) {
                log.debug("{}: skipped by producer expiry: {}", partition, e.getMessage());
            }
        }
        return deleted;
    }

    /**
     * One cleaner thread's rounds over every replica (leaders and followers compact their own copies,
     * as in Kafka), each below the replica's high watermark, until no log is due (that no other thread
     * is cleaning) or {@code maxRounds} rounds ran.
     *
     * @return the rounds that cleaned
     */
    public int runCleaner(CleanerThread cleaner, int maxRounds) {
        List<LogCleaner.Target> targets = partitions().stream()
                .map(p -> new LogCleaner.Target(p.log(), p.highWatermark()))
                .toList();
        int rounds = 0;
        while (rounds < maxRounds && cleaner.runRound(targets).isPresent()) {
            rounds++;
        }
        return rounds;
    }

    /** Checkpoints every replica's high watermark that moved since its last checkpoint. */
    public void checkpointHighWatermarks() {
        for (Partition partition : partitions()) {
            try {
                partition.checkpointHighWatermark();
            } catch (RuntimeException e) {
                log.warn("{}: high-watermark checkpoint failed: {}", partition, e.toString());
            }
        }
    }

    /**
     * Closes and deletes, in every log, the segment files removed from it whose {@code
     * file.delete.delay.ms} has passed ({@code PartitionLog.deleteRetiredSegments}).
     *
     * @return segment files deleted in total
     */
    public int deleteRetiredSegments() {
        int deleted = 0;
        for (Partition partition : partitions()) {
            deleted += partition.log().deleteRetiredSegments();
        }
        return deleted;
    }

    /** Flushes every log whose {@code flush.ms} is due. */
    public void flushIfDue() {
        for (Partition partition : partitions()) {
            try {
                partition.log().flushIfDue();
            } catch (IllegalStateException e) {
                log.debug("{}: skipped by flush: {}", partition, e.getMessage());
            }
        }
    }

    /** Closes every log cleanly (clean-shutdown marker: no rescan at the next open). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            replication.replicasChanged(ClusterImage.EMPTY, List.of());
        } catch (RuntimeException e) {
            log.error("Replication listener failed at close", e);
        }
        List<RuntimeException> failures = new ArrayList<>();
        for (Partition partition : partitions.values()) {
            try {
                partition.close();
            } catch (RuntimeException e) {
                failures.add(e);
                log.error("{}: close failed", partition, e);
            }
        }
        log.info("Closed {} partition logs", partitions.size());
        partitions.clear();
        // Each log's close flushed its pending roll flushes itself; this stops the thread.
        rollFlusher.close();
        if (!failures.isEmpty()) {
            throw failures.getFirst();
        }
    }
}
