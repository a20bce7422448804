package io.tributary.coordinator.transaction;

import io.tributary.coordinator.metadata.TopicPartition;
import io.tributary.coordinator.transaction.MarkerChannel.Markers;
import io.tributary.coordinator.transaction.TransactionStore.StoreException;
import io.tributary.coordinator.transaction.TransactionTransitions.Decision;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator of the coordinator leader: it serves the transaction requests with
 * {@link TransactionTransitions}' decisions, stores each decision in the {@link TransactionStore}
 * before it answers, and has the markers of every transaction being ended written through the
 * {@link MarkerChannel} until each partition acknowledged its marker; then it stores the
 * transaction complete.
 *
 * <p><b>Failover.</b> Nothing a producer was told depends on this object's memory: a decision is
 * answered only once stored, and the markers still to write are found again from the store ({@link
 * #scan}), so a new leader's coordinator finishes the commits and aborts its predecessor began. A
 * deposed leader's writes are refused by the store's compare-and-set, and its late markers carry a
 * lower {@code coordinatorEpoch}, which brokers refuse.
 *
 * <p><b>Timers.</b> {@link #tick} (every 100 ms or so) resends unacknowledged markers and stores
 * transactions whose markers are all written; {@link #scan} (every second or so) also adopts the
 * transactions being ended that this object does not track yet (after a failover), aborts
 * transactions open past their timeout and forgets expired transactional ids.
 *
 * <p>Thread-safety: safe for concurrent use. Requests and timer work on one transactional id are
 * serialized by a lock striped over the ids; different ids proceed in parallel (a store write
 * blocks for a Raft round trip).
 */
public final class TransactionCoordinator {

    private static final Logger log = LoggerFactory.getLogger(TransactionCoordinator.class);

    private static final int STRIPES = 64;

    private final TransactionStore store;
    private final TransactionStore.ProducerIds producerIds;
    private final MarkerChannel channel;
    private final TransactionConfig config;
    private final LongSupplier clock;
    private final IntSupplier coordinatorEpoch;
    private final Object[] stripes = new Object[STRIPES];
    private final Map<String, Ending> ending = new ConcurrentHashMap<>();

    /** The markers of one transaction being ended, and which partitions still owe an acknowledgement. */
    private static final class Ending {
        final long revision;
        final Markers markers;
        final Set<TopicPartition> remaining = ConcurrentHashMap.newKeySet();
        volatile long sentAtMs;

        Ending(long revision, Markers markers) {
            this.revision = revision;
            this.markers = markers;
            remaining.addAll(markers.partitions());
        }
    }

    /** An InitProducerId answer. */
    public record ProducerIdAndEpoch(long producerId, short producerEpoch) {}

    /**
     * @param store where records are kept
     * @param producerIds hands out new producer ids
     * @param channel writes markers
     * @param config bounds and timers
     * @param clock the wall clock, in milliseconds (timestamps of records, timeouts)
     * @param coordinatorEpoch this leader's epoch (its Raft term), carried by its markers
     */
    public TransactionCoordinator(
            TransactionStore store,
            TransactionStore.ProducerIds producerIds,
            MarkerChannel channel,
            TransactionConfig config,
            LongSupplier clock,
            IntSupplier coordinatorEpoch) {
        this.store = Objects.requireNonNull(store, "store");
        this.producerIds = Objects.requireNonNull(producerIds, "producerIds");
        this.channel = Objects.requireNonNull(channel, "channel");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.coordinatorEpoch = Objects.requireNonNull(coordinatorEpoch, "coordinatorEpoch");
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
    }

    /**
     * InitProducerId with a transactional id.
     *
     * @throws TransactionException with the error to answer (see {@link TransactionTransitions#initProducerId};
     *     and NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, CONCURRENT_TRANSACTIONS, POLICY_VIOLATION when
     *     the store refused or failed)
     */
    public ProducerIdAndEpoch initProducerId(
            String transactionalId, int timeoutMs, long expectedProducerId, short expectedEpoch) {
        synchronized (stripe(transactionalId)) {
            long now = clock.getAsLong();
            StoreException[] idFailure = new StoreException[1];
            Decision d;
            try {
                d = TransactionTransitions.initProducerId(
                        store.get(transactionalId),
                        transactionalId,
                        timeoutMs,
                        expectedProducerId,
                        expectedEpoch,
                        now,
                        config,
                        () -> {
                            try {
                                return producerIds.next();
                            } catch (StoreException e) {
                                idFailure[0] = e;
                                throw new IdFailure();
                            }
                        });
            } catch (IdFailure e) {
                throw failed(idFailure[0]);
            }
            write(d);
            if (d.error() != Errors.NONE) {
                throw new TransactionException(
                        d.error(), "the open transaction of '" + transactionalId + "' is being aborted: retry");
            }
            return new ProducerIdAndEpoch(d.producerId(), d.producerEpoch());
        }
    }

    /**
     * A producer id for an idempotent producer (InitProducerId without a transactional id) at epoch
     * 0, as Kafka's coordinator answers one.
     *
     * @throws TransactionException NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE when no id can be had
     */
    public ProducerIdAndEpoch newIdempotentProducer() {
        try {
            return new ProducerIdAndEpoch(producerIds.next(), (short) 0);
        } catch (StoreException e) {
            throw failed(e);
        }
    }

    /** AddPartitionsToTxn from a producer ({@link TransactionTransitions#addPartitions}). */
    public void addPartitions(
            String transactionalId, long producerId, short producerEpoch, Collection<TopicPartition> partitions) {
        synchronized (stripe(transactionalId)) {
            write(TransactionTransitions.addPartitions(
                    store.get(transactionalId),
                    transactionalId,
                    producerId,
                    producerEpoch,
                    partitions,
                    clock.getAsLong(),
                    config));
        }
    }

    /** AddOffsetsToTxn ({@link TransactionTransitions#addOffsets}). */
    public void addOffsets(String transactionalId, long producerId, short producerEpoch, String groupId) {
        synchronized (stripe(transactionalId)) {
            write(TransactionTransitions.addOffsets(
                    store.get(transactionalId),
                    transactionalId,
                    producerId,
                    producerEpoch,
                    groupId,
                    clock.getAsLong(),
                    config));
        }
    }

    /** A broker's verification ({@link TransactionTransitions#verify}); reads only. */
    public Map<TopicPartition, Errors> verify(
            String transactionalId, long producerId, short producerEpoch, Collection<TopicPartition> partitions) {
        return TransactionTransitions.verify(
                store.get(transactionalId), transactionalId, producerId, producerEpoch, partitions);
    }

    /** EndTxn ({@link TransactionTransitions#endTxn}); answers once the decision is stored. */
    public void endTxn(String transactionalId, long producerId, short producerEpoch, boolean commit) {
        synchronized (stripe(transactionalId)) {
            write(TransactionTransitions.endTxn(
                    store.get(transactionalId), transactionalId, producerId, producerEpoch, commit, clock.getAsLong()));
        }
    }

    /**
     * Resends markers not acknowledged within {@link TransactionConfig#markerRetryBackoff} and
     * stores complete the transactions whose markers are all written (one whose store failed is
     * tried again here).
     */
    public void tick() {
        long now = clock.getAsLong();
        for (Map.Entry<String, Ending> e : ending.entrySet()) {
            Ending end = e.getValue();
            if (end.remaining.isEmpty()) {
                complete(e.getKey(), end);
            } else if (now - end.sentAtMs >= config.markerRetryBackoff().toMillis()) {
                send(end, Set.copyOf(end.remaining), now);
            }
        }
    }

    /**
     * Goes over every stored record: adopts transactions being ended that are not tracked (their
     * markers are sent), aborts transactions open past their timeout and forgets expired ids. Then
     * {@link #tick}.
     */
    public void scan() {
        long now = clock.getAsLong();
        for (TransactionRecord r : store.all()) {
            String id = r.transactionalId();
            if (r.state().preparing()) {
                Ending end = ending.get(id);
                if (end == null || end.revision != r.revision()) {
                    synchronized (stripe(id)) {
                        store.get(id).filter(s -> s.revision() == r.revision()).ifPresent(this::startMarkers);
                    }
                }
            } else if (TransactionTransitions.abortIfTimedOut(r, now).isPresent()) {
                synchronized (stripe(id)) {
                    Optional<TransactionRecord> s = store.get(id);
                    Optional<TransactionRecord> abort =
                            s.flatMap(x -> TransactionTransitions.abortIfTimedOut(x, clock.getAsLong()));
                    if (abort.isPresent()) {
                        log.info("transaction of '{}' open longer than {} ms: aborting it", id, r.timeoutMs());
                        tryWrite(abort.get());
                    }
                }
            } else if (TransactionTransitions.expired(r, now, config)) {
                synchronized (stripe(id)) {
                    Optional<TransactionRecord> s = store.get(id);
                    if (s.isPresent() && TransactionTransitions.expired(s.get(), clock.getAsLong(), config)) {
                        try {
                            store.delete(id, s.get().revision());
                            log.info("transactional id '{}' expired: forgotten", id);
                        } catch (StoreException e) {
                            log.debug("expiring '{}' failed ({}); tried again at the next scan", id, e.getMessage());
                        }
                    }
                }
            }
        }
        ending.entrySet()
                .removeIf(e -> store.get(e.getKey())
                        .filter(s -> s.state().preparing() && s.revision() == e.getValue().revision)
                        .isEmpty());
        tick();
    }

    /** Forgets the markers being tracked (leadership was lost; the next leader finds them in the store). */
    public void clear() {
        ending.clear();
    }

    /** How many transactions are being ended (markers not all acknowledged, or completion not stored). */
    public int endingCount() {
        return ending.size();
    }

    private void write(Decision d) {
        if (d.write() == null) {
            return;
        }
        try {
            storeAndMark(d.write());
        } catch (StoreException e) {
            throw failed(e);
        }
    }

    private void tryWrite(TransactionRecord r) {
        try {
            storeAndMark(r);
        } catch (StoreException e) {
            log.debug("storing '{}' failed ({}); tried again at the next scan", r.transactionalId(), e.getMessage());
        }
    }

    /** Stores a record; one being ended then has its markers sent. Called under the id's stripe. */
    private void storeAndMark(TransactionRecord r) throws StoreException {
        store.store(r);
        if (r.state().preparing()) {
            startMarkers(r);
        }
    }

    /** Starts writing the markers of a stored record being ended. Called under the id's stripe. */
    private void startMarkers(TransactionRecord r) {
        Markers markers = new Markers(
                r.transactionalId(),
                r.producerId(),
                r.producerEpoch(),
                r.state() == TransactionState.PREPARE_COMMIT,
                coordinatorEpoch.getAsInt(),
                r.partitions());
        Ending end = new Ending(r.revision(), markers);
        ending.put(r.transactionalId(), end);
        if (end.remaining.isEmpty()) {
            complete(r.transactionalId(), end);
        } else {
            send(end, markers.partitions(), clock.getAsLong());
        }
    }

    private void send(Ending end, Set<TopicPartition> partitions, long now) {
        end.sentAtMs = now;
        Markers m = end.markers;
        channel.send(
                new Markers(
                        m.transactionalId(),
                        m.producerId(),
                        m.producerEpoch(),
                        m.commit(),
                        m.coordinatorEpoch(),
                        partitions),
                (markers, tp) -> acknowledged(end, tp));
    }

    private void acknowledged(Ending end, TopicPartition tp) {
        if (end.remaining.remove(tp) && end.remaining.isEmpty()) {
            complete(end.markers.transactionalId(), end);
        }
    }

    /** Stores the transaction complete, if the stored record is still the one whose markers were written. */
    private void complete(String transactionalId, Ending end) {
        synchronized (stripe(transactionalId)) {
            if (ending.get(transactionalId) != end) {
                return;
            }
            Optional<TransactionRecord> s = store.get(transactionalId);
            if (s.isEmpty()
                    || s.get().revision() != end.revision
                    || !s.get().state().preparing()) {
                ending.remove(transactionalId, end);
                return;
            }
            try {
                store.store(TransactionTransitions.complete(s.get(), clock.getAsLong()));
                ending.remove(transactionalId, end);
            } catch (StoreException e) {
                log.debug("completing '{}' failed ({}); tried again at the next tick", transactionalId, e.getMessage());
                if (e.reason() == StoreException.Reason.CONFLICT || e.reason() == StoreException.Reason.NOT_LEADER) {
                    ending.remove(transactionalId, end);
                }
            }
        }
    }

    private Object stripe(String transactionalId) {
        return stripes[Math.floorMod(transactionalId.hashCode(), STRIPES)];
    }

    private static TransactionException failed(StoreException e) {
        Errors error = switch (e.reason()) {
            case NOT_LEADER -> Errors.NOT_COORDINATOR;
            case UNAVAILABLE -> Errors.COORDINATOR_NOT_AVAILABLE;
            case CONFLICT -> Errors.CONCURRENT_TRANSACTIONS;
            case LIMIT_EXCEEDED -> Errors.POLICY_VIOLATION;
        };
        return new TransactionException(error, e.getMessage());
    }

    /** Carries a producer id allocation's failure out of the decision. */
    private static final class IdFailure extends RuntimeException {
        IdFailure() {
            super(null, null, false, false);
        }
    }
}
