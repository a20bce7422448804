package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.metadata.CommandCodec;
import io.tributary.coordinator.metadata.CommandValidator;
import io.tributary.coordinator.metadata.CorruptCommandException;
import io.tributary.coordinator.metadata.ImageCodec;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.MetadataImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster metadata as a Ratis state machine: applies committed {@link MetadataCommand}s (encoded by
 * {@link CommandCodec}) to a {@link MetadataImage}, and snapshots the image.
 *
 * <p><b>Writes.</b> On the leader, {@link #startTransaction} decodes and validates a client's command
 * against the latest applied image ({@link CommandValidator}); an invalid one is rejected before it
 * is appended, its error in the {@code StateMachineException} message as {@code [tributary-error
 * <wire id>] <message>} (parsed back by {@link MetadataClient}). Every voter then applies committed
 * entries in log order in {@link #applyTransaction}; a command that became invalid between
 * validation and apply (another command got there first) changes nothing and replies with its error
 * ({@link Reply}), the same on every voter. The reply to a producer id allocation also carries the
 * first id of the block: the image's next producer id before the command.
 *
 * <p><b>Reads.</b> {@link #image()} is the latest applied image of this voter; {@link #query} with
 * {@link #QUERY_IMAGE} returns its {@link ImageCodec} bytes.
 *
 * <p><b>Snapshots.</b> {@link #takeSnapshot} writes {@link ImageCodec} bytes (which end in a CRC32C)
 * to {@code <storage>/sm/snapshot.<term>_<index>}, atomically (temporary file, then rename), with an
 * MD5 file beside it (Ratis's {@link SimpleStateMachineStorage} layout, which also lets a leader ship
 * the file to a follower that is too far behind). On start the latest snapshot is verified (MD5, then
 * CRC32C) and loaded; Ratis then replays only the entries after its index.
 *
 * <p>Thread-safety: Ratis calls apply and snapshot methods from one thread; {@link #image()} and
 * {@link #query} may be called from any thread (the image and its term-index are one volatile
 * reference). Listeners run on the apply thread and must not block.
 */
public class MetadataStateMachine extends BaseStateMachine {

    /** The one query: the request content is this single byte, the reply is the image's bytes. */
    public static final byte QUERY_IMAGE = 1;

    /** The marker before the error code in the message of a rejected command. */
    static final String ERROR_MARKER = "[tributary-error ";

    private static final Logger log = LoggerFactory.getLogger(MetadataStateMachine.class);

    private record Applied(MetadataImage image, TermIndex termIndex) {}

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final CommandValidator validator;
    private final List<Consumer<MetadataImage>> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong appliedCommands = new AtomicLong();
    private volatile Applied applied = new Applied(MetadataImage.EMPTY, null);
    /** Guards nothing but the wait for an index; signalled after every applied index. */
    private final ReentrantLock appliedLock = new ReentrantLock();

    private final Condition appliedAdvanced = appliedLock.newCondition();

    public MetadataStateMachine(CommandValidator validator) {
        this.validator = validator;
    }

    /** The latest image this voter has applied. */
    public MetadataImage image() {
        return applied.image();
    }

    /** The log index of the latest entry this voter applied (or loaded from a snapshot); -1 before any. */
    public long appliedIndex() {
        TermIndex termIndex = applied.termIndex();
        return termIndex == null ? RaftLog.INVALID_LOG_INDEX : termIndex.getIndex();
    }

    /**
     * Waits until this voter applied the entry at {@code index} (for a reader that must see a write
     * committed through another voter), at most {@code maxWait}.
     *
     * @return whether it was applied in time
     */
    public boolean awaitApplied(long index, Duration maxWait) throws InterruptedException {
        if (appliedIndex() >= index) {
            return true;
        }
        long remainingNanos = maxWait.toNanos();
        appliedLock.lock();
        try {
            while (appliedIndex() < index) {
                if (remainingNanos <= 0) {
                    return false;
                }
                remainingNanos = appliedAdvanced.awaitNanos(remainingNanos);
            }
            return true;
        } finally {
            appliedLock.unlock();
        }
    }

    private void signalApplied() {
        appliedLock.lock();
        try {
            appliedAdvanced.signalAll();
        } finally {
            appliedLock.unlock();
        }
    }

    /** Commands this instance applied since it started (not those loaded from a snapshot). */
    public long appliedCommandsSinceStart() {
        return appliedCommands.get();
    }

    /** Called with each new image on the apply thread (after commands that changed something). */
    public void addListener(Consumer<MetadataImage> listener) {
        listeners.add(listener);
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        getLifeCycle().startAndTransition(() -> load(storage.getLatestSnapshot()));
    }

    /** Ratis pauses the state machine before it installs a snapshot from the leader. */
    @Override
    public void pause() {
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
    }

    /** After a snapshot from the leader is installed: load it, then run again. */
    @Override
    public void reinitialize() throws IOException {
        getLifeCycle().transition(LifeCycle.State.STARTING);
        load(storage.loadLatestSnapshot());
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        TransactionContext trx = super.startTransaction(request);
        try {
            validator.validate(image(), request.getMessage().getContent().toByteArray());
        } catch (MetadataException e) {
            trx.setException(new IOException(ERROR_MARKER + e.code().wireId() + "] " + e.getMessage()));
        }
        return trx;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        TermIndex termIndex = TermIndex.valueOf(entry);
        MetadataCommand command;
        try {
            command = CommandCodec.decode(
                    entry.getStateMachineLogEntry().getLogData().toByteArray());
        } catch (CorruptCommandException e) {
            // Every voter decodes the same committed bytes: skipping would hide a bug or a bad disk.
            throw new IllegalStateException("committed log entry " + termIndex + " does not decode", e);
        }
        Applied before = applied;
        Reply reply;
        MetadataImage next = before.image();
        try {
            next = before.image().apply(command);
            reply = command instanceof MetadataCommand.AllocateProducerIds
                    ? Reply.allocated(next.version(), before.image().nextProducerId())
                    : Reply.applied(next.version());
        } catch (MetadataException e) {
            log.debug("entry {} changes nothing: {}", termIndex, e.getMessage());
            reply = Reply.failed(e);
        }
        applied = new Applied(next, termIndex);
        updateLastAppliedTermIndex(termIndex);
        appliedCommands.incrementAndGet();
        signalApplied();
        if (next != before.image()) {
            for (Consumer<MetadataImage> listener : listeners) {
                listener.accept(next);
            }
        }
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply.encode())));
    }

    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        // Entries without a command (leader no-ops, configuration changes) still advance the index.
        applied = new Applied(applied.image(), TermIndex.valueOf(term, index));
        super.notifyTermIndexUpdated(term, index);
        signalApplied();
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        byte[] content = request.getContent().toByteArray();
        if (content.length != 1 || content[0] != QUERY_IMAGE) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("unknown metadata query"));
        }
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(ImageCodec.encode(image()))));
    }

    @Override
    public long takeSnapshot() throws IOException {
        Applied state = applied;
        if (state.termIndex() == null) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        Path file = storage.getSnapshotFile(
                        state.termIndex().getTerm(), state.termIndex().getIndex())
                .toPath();
        Path tmp = file.resolveSibling(".tmp-" + file.getFileName());
        Files.write(tmp, ImageCodec.encode(state.image()));
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file.toFile());
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file, md5), state.termIndex()));
        log.info(
                "metadata snapshot at {} (metadata version {}) written to {}",
                state.termIndex(),
                state.image().version(),
                file);
        return state.termIndex().getIndex();
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        Path file = snapshot.getFile().getPath();
        if (snapshot.getFile().getFileDigest() != null) {
            MD5FileUtil.verifySavedMD5(file.toFile(), snapshot.getFile().getFileDigest());
        }
        TermIndex termIndex = SimpleStateMachineStorage.getTermIndexFromSnapshotFile(file.toFile());
        MetadataImage image = ImageCodec.decode(Files.readAllBytes(file));
        applied = new Applied(image, termIndex);
        setLastAppliedTermIndex(termIndex);
        signalApplied();
        log.info("metadata snapshot {} loaded: {}, metadata version {}", file, termIndex, image.version());
        listeners.forEach(l -> l.accept(image));
    }
}
