package io.tributary.coordinator.metadata.raft;

import io.tributary.coordinator.metadata.CommandCodec;
import io.tributary.coordinator.metadata.ImageCodec;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.MetadataException.ErrorCode;
import io.tributary.coordinator.metadata.MetadataImage;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits metadata commands to the Raft group (whichever voter leads) and reads images. A client
 * built on this process's voter ({@link #MetadataClient(MetadataRaftNode, WriteObserver)}) hands
 * writes to that voter in-process while it leads, and uses the Netty transport otherwise.
 *
 * <p>A command rejected by validation, or that changed nothing because it had become invalid by the
 * time it was applied, throws the typed {@link MetadataException}; a group that cannot be reached
 * (no leader within the retries) throws an {@link IOException}.
 *
 * <p>Ratis retries a request under its own call id (its retry cache applies it once), but its
 * blocking client gives up with an {@link AlreadyClosedException} when the connection to a leader
 * that is going away is closed under it. This client then sends the command again, up to {@link
 * #DEFAULT_MAX_RESENDS} times, as a new request: if the first one was applied after all, the second
 * is applied too. Every command is safe under that: fence, unfence, registering the same
 * incarnation, elections and config changes are idempotent; a second create, delete, ISR change or
 * partition addition is refused with its typed error ({@link
 * io.tributary.coordinator.metadata.TopicExistsException}, {@link
 * io.tributary.coordinator.metadata.UnknownTopicException}, {@link
 * io.tributary.coordinator.metadata.StaleEpochException}, {@link
 * io.tributary.coordinator.metadata.InvalidPartitionsException}), as Kafka's own retried admin
 * requests are; a second producer id allocation hands out a second block, and the first is never
 * used by anyone (ids are only ever skipped, never handed out twice); group state (committed
 * offsets, a classic group's generation) is stored again with the same values, and its deletes are
 * idempotent.
 *
 * <p>Thread-safety: safe for concurrent use (Ratis's client is).
 */
public final class MetadataClient implements AutoCloseable {

    /** How long one request may take before it is retried (default 3 s). */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(3);

    /** How often a request is tried before giving up (default 100, with 50 ms between: about 5 s). */
    public static final int DEFAULT_MAX_ATTEMPTS = 100;

    /** The pause between attempts (default 50 ms: a failover takes a few hundred ms). */
    public static final Duration DEFAULT_RETRY_PAUSE = Duration.ofMillis(50);

    /** How often a command is sent again after Ratis gave up on a closed connection (default 10). */
    public static final int DEFAULT_MAX_RESENDS = 10;

    private static final Logger log = LoggerFactory.getLogger(MetadataClient.class);

    private static final Pattern ERROR =
            Pattern.compile(Pattern.quote(MetadataStateMachine.ERROR_MARKER) + "(\\d+)\\] (.*)", Pattern.DOTALL);

    /** How a write ({@link #submit}, {@link #submitForIndex}, {@link #allocateProducerIds}) ended. */
    public enum WriteOutcome {
        /** Committed and applied on the leader. */
        COMMITTED,
        /** Refused by the state machine's validation (a typed {@link MetadataException}). */
        REJECTED,
        /** Not committed: no leader within the retries, or the state machine failed. */
        FAILED
    }

    /**
     * Told of every write this client made: how long it took from sending to the leader's reply
     * (retries and resends included) and how it ended. Called on the writing thread; must be cheap.
     */
    @FunctionalInterface
    public interface WriteObserver {
        WriteObserver NONE = (nanos, outcome) -> {};

        void written(long nanos, WriteOutcome outcome);
    }

    private final RaftClient client;
    private final WriteObserver observer;
    /** This process's voter, whose own division takes writes in-process while it leads; or null. */
    private final MetadataRaftNode local;

    private final Duration requestTimeout;

    public MetadataClient(RaftGroup group) {
        this(group, WriteObserver.NONE);
    }

    /** A client of {@code group} over {@code transport} (the voters' {@link RaftTransport}). */
    public MetadataClient(RaftGroup group, RaftTransport transport, Duration requestTimeout, int maxAttempts) {
        this(group, requestTimeout, maxAttempts, DEFAULT_RETRY_PAUSE, WriteObserver.NONE, null, transport);
    }

    /**
     * A client of {@code local}'s group that submits writes to {@code local} in-process while it
     * leads ({@link MetadataRaftNode#submitIfLeader}), and through the transport to the leader
     * otherwise. A write {@code local} took but could not commit (it lost leadership meanwhile, or
     * did not answer within the request timeout) is sent again through the transport, as a new
     * request: the resend every command is safe under (see above).
     */
    public MetadataClient(MetadataRaftNode local, WriteObserver observer) {
        this(
                local.group(),
                DEFAULT_REQUEST_TIMEOUT,
                DEFAULT_MAX_ATTEMPTS,
                DEFAULT_RETRY_PAUSE,
                observer,
                Objects.requireNonNull(local, "local"),
                local.transport());
    }

    public MetadataClient(RaftGroup group, WriteObserver observer) {
        this(group, DEFAULT_REQUEST_TIMEOUT, DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_PAUSE, observer);
    }

    public MetadataClient(RaftGroup group, Duration requestTimeout, int maxAttempts, Duration retryPause) {
        this(group, requestTimeout, maxAttempts, retryPause, WriteObserver.NONE);
    }

    public MetadataClient(
            RaftGroup group, Duration requestTimeout, int maxAttempts, Duration retryPause, WriteObserver observer) {
        this(group, requestTimeout, maxAttempts, retryPause, observer, null, RaftTransport.PLAIN);
    }

    /**
     * {@code local} may be null (no in-process writes); tests give it a group of other addresses.
     * {@code transport} is the group's ({@link RaftTransport}: the voters' own).
     */
    MetadataClient(
            RaftGroup group,
            Duration requestTimeout,
            int maxAttempts,
            Duration retryPause,
            WriteObserver observer,
            MetadataRaftNode local,
            RaftTransport transport) {
        this.observer = Objects.requireNonNull(observer, "observer");
        this.local = local;
        this.requestTimeout = requestTimeout;
        RaftProperties properties = new RaftProperties();
        Parameters parameters = new Parameters();
        transport.configureClient(properties, parameters);
        RaftClientConfigKeys.Rpc.setRequestTimeout(
                properties, TimeDuration.valueOf(requestTimeout.toMillis(), TimeUnit.MILLISECONDS));
        this.client = RaftClient.newBuilder()
                .setRaftGroup(group)
                .setProperties(properties)
                .setParameters(parameters)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                        maxAttempts, TimeDuration.valueOf(retryPause.toMillis(), TimeUnit.MILLISECONDS)))
                .build();
    }

    /**
     * Submits a command and waits until it is committed and applied on the leader.
     *
     * @return the metadata version after the command
     * @throws MetadataException if the command is invalid
     * @throws IOException if the group cannot commit it
     */
    public long submit(MetadataCommand command) throws IOException {
        return send(command).reply().metadataVersion();
    }

    /**
     * Submits a command and waits until it is committed and applied on the leader.
     *
     * @return the Raft log index of the entry (a reader on another voter waits for it: {@link
     *     MetadataStateMachine#awaitApplied})
     * @throws MetadataException if the command is invalid
     * @throws IOException if the group cannot commit it
     */
    public long submitForIndex(MetadataCommand command) throws IOException {
        return send(command).logIndex();
    }

    /**
     * A block of producer ids handed to a broker.
     *
     * @param metadataVersion the metadata version after the allocation
     * @param firstProducerId the first id of the block
     * @param count how many ids, from {@code firstProducerId} on
     */
    public record ProducerIdBlock(long metadataVersion, long firstProducerId, int count) {}

    /**
     * Allocates a block of producer ids for a broker ({@link MetadataCommand.AllocateProducerIds}) and
     * waits until it is committed and applied on the leader.
     *
     * @throws MetadataException if the command is invalid (an unknown broker, a count out of bounds)
     * @throws IOException if the group cannot commit it
     */
    public ProducerIdBlock allocateProducerIds(int brokerId, int count) throws IOException {
        Reply reply =
                send(new MetadataCommand.AllocateProducerIds(brokerId, count)).reply();
        if (reply.firstProducerId() == Reply.NO_PRODUCER_ID) {
            throw new IOException("the reply to a producer id allocation names no block");
        }
        return new ProducerIdBlock(reply.metadataVersion(), reply.firstProducerId(), count);
    }

    private record Sent(Reply reply, long logIndex) {}

    private Sent send(MetadataCommand command) throws IOException {
        long started = System.nanoTime();
        WriteOutcome outcome = WriteOutcome.FAILED;
        try {
            Sent sent = sendOnce(command);
            outcome = WriteOutcome.COMMITTED;
            return sent;
        } catch (MetadataException e) {
            outcome = WriteOutcome.REJECTED;
            throw e;
        } finally {
            observer.written(System.nanoTime() - started, outcome);
        }
    }

    private Sent sendOnce(MetadataCommand command) throws IOException {
        Message message = Message.valueOf(ByteString.copyFrom(CommandCodec.encode(command)));
        RaftClientReply reply;
        try {
            reply = write(message);
        } catch (StateMachineException e) {
            throw rejection(e);
        }
        if (reply.getStateMachineException() != null) {
            throw rejection(reply.getStateMachineException());
        }
        if (!reply.isSuccess()) {
            throw new IOException("metadata command not committed", reply.getException());
        }
        Reply decoded = Reply.decode(reply.getMessage().getContent().toByteArray());
        if (decoded.error() != null) {
            throw decoded.error();
        }
        return new Sent(decoded, reply.getLogIndex());
    }

    /**
     * The typed error of a command the leader refused to append, or an {@link IOException} when the
     * state machine failed otherwise.
     */
    private static IOException rejection(StateMachineException e) {
        Matcher m = ERROR.matcher(String.valueOf(e.getMessage()));
        if (m.find()) {
            throw MetadataException.of(ErrorCode.fromWireId(Integer.parseInt(m.group(1))), m.group(2));
        }
        return new IOException("metadata state machine failed: " + e.getMessage(), e);
    }

    private RaftClientReply write(Message message) throws IOException {
        if (local != null) {
            RaftClientReply reply = inProcess(message);
            if (reply != null) {
                return reply;
            }
        }
        return resending(() -> client.io().send(message));
    }

    /**
     * The local leader's reply to a write: committed and applied, or refused by the state machine;
     * null when the write goes through the transport instead (this voter does not lead, or lost
     * leadership before the entry was committed, or did not answer in time).
     */
    private RaftClientReply inProcess(Message message) throws IOException {
        var submitted = local.submitIfLeader(message, requestTimeout.toMillis());
        if (submitted.isEmpty()) {
            return null;
        }
        RaftClientReply reply;
        try {
            reply = submitted.get().get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while the metadata leader commits a command");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StateMachineException refused) {
                throw refused;
            }
            log.debug("in-process metadata write failed; sent through the transport", e.getCause());
            return null;
        } catch (TimeoutException e) {
            log.debug("in-process metadata write not answered within {}; sent through the transport", requestTimeout);
            return null;
        }
        if (reply.isSuccess() || reply.getStateMachineException() != null) {
            return reply;
        }
        log.debug("in-process metadata write not committed; sent through the transport", reply.getException());
        return null;
    }

    private interface Request {
        RaftClientReply send() throws IOException;
    }

    private static RaftClientReply resending(Request request) throws IOException {
        for (int resend = 0; ; resend++) {
            try {
                return request.send();
            } catch (AlreadyClosedException e) {
                if (resend >= DEFAULT_MAX_RESENDS) {
                    throw e;
                }
                log.debug("metadata request sent again after {}", e.getMessage());
            }
        }
    }

    /** Reads the leader's image (a linearizable read). */
    public MetadataImage readImage() throws IOException {
        Message query = Message.valueOf(ByteString.copyFrom(new byte[] {MetadataStateMachine.QUERY_IMAGE}));
        RaftClientReply reply = resending(() -> client.io().sendReadOnly(query));
        if (!reply.isSuccess()) {
            throw new IOException("metadata read failed", reply.getException());
        }
        return ImageCodec.decode(reply.getMessage().getContent().toByteArray());
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
