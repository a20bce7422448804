package io.tributary.coordinator.liveness;

import io.tributary.coordinator.metadata.Broker;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataCommand.ElectLeaders;
import io.tributary.coordinator.metadata.MetadataCommand.ElectionType;
import io.tributary.coordinator.metadata.MetadataCommand.FenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.PartitionState;
import io.tributary.coordinator.metadata.StaleEpochException;
import io.tributary.coordinator.metadata.Topic;
import io.tributary.coordinator.metadata.TopicPartition;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Tracks broker heartbeats on the metadata leader and decides the fence, unfence and preferred
 * election commands they imply. It never writes: the caller submits the commands it returns (and a
 * command decided on an image that has since changed is checked again by the state machine).
 *
 * <p>A broker incarnation's session starts when this instance first sees it (in {@link #heartbeat}
 * or {@link #tick}), so a new leader gives every broker a full session timeout. It is fenced when
 * {@link LivenessConfig#sessionTimeout()} passes without a heartbeat; a heartbeat from a fenced
 * broker unfences it; once a broker has been unfenced for {@link
 * LivenessConfig#preferredLeaderDelay()}, the partitions that prefer it and have it in the ISR get
 * it back as leader. A broker stopping cleanly asks to be fenced at once ({@link #shutdown}).
 *
 * <p>Thread-safety: not thread-safe; the leader calls it from one thread (or under one lock).
 */
public final class BrokerLiveness {

    private record Session(UUID incarnationId, Instant lastHeartbeat) {}

    private final LivenessConfig config;
    private final InstantSource clock;
    private final Map<Integer, Session> sessions = new HashMap<>();
    private final Map<Integer, Instant> unfencedSince = new HashMap<>();
    /** Brokers whose incarnation asked for a controlled shutdown: its heartbeats no longer unfence it. */
    private final Map<Integer, UUID> shuttingDown = new HashMap<>();

    public BrokerLiveness(LivenessConfig config, InstantSource clock) {
        this.config = config;
        this.clock = clock;
    }

    /**
     * Records a heartbeat.
     *
     * @return an {@link UnfenceBroker} to submit when the broker is fenced, else empty
     * @throws io.tributary.coordinator.metadata.UnknownBrokerException if the broker is not registered
     * @throws StaleEpochException if the incarnation is not the registered one (the broker must
     *     register again)
     */
    public Optional<MetadataCommand> heartbeat(MetadataImage image, int brokerId, UUID incarnationId) {
        Broker broker = image.broker(brokerId);
        if (!broker.incarnationId().equals(incarnationId)) {
            throw new StaleEpochException("broker %d heartbeats as incarnation %s; the registered one is %s"
                    .formatted(brokerId, incarnationId, broker.incarnationId()));
        }
        sessions.put(brokerId, new Session(incarnationId, clock.instant()));
        if (incarnationId.equals(shuttingDown.get(brokerId))) {
            return Optional.empty();
        }
        return broker.fenced() ? Optional.of(new UnfenceBroker(brokerId, incarnationId)) : Optional.empty();
    }

    /**
     * A broker's controlled shutdown (it is stopping cleanly): fence it now rather than when its
     * session expires, so that its leaderships move at once. From then on heartbeats of this
     * incarnation no longer unfence it (one sent just before the shutdown request must not undo
     * it); a new incarnation (the broker started again) is not affected. This memory is the
     * leader's alone: after a leader change a late heartbeat of the stopping incarnation could
     * unfence it, and its session then expires as usual.
     *
     * @return the {@link FenceBroker} to submit, or empty when the image has the broker fenced already
     * @throws io.tributary.coordinator.metadata.UnknownBrokerException if the broker is not registered
     * @throws StaleEpochException if the incarnation is not the registered one
     */
    public Optional<MetadataCommand> shutdown(MetadataImage image, int brokerId, UUID incarnationId) {
        Broker broker = image.broker(brokerId);
        if (!broker.incarnationId().equals(incarnationId)) {
            throw new StaleEpochException("broker %d asks to shut down as incarnation %s; the registered one is %s"
                    .formatted(brokerId, incarnationId, broker.incarnationId()));
        }
        shuttingDown.put(brokerId, incarnationId);
        return broker.fenced() ? Optional.empty() : Optional.of(new FenceBroker(brokerId, incarnationId));
    }

    /**
     * Decides what the passage of time implies: fences for expired sessions, preferred leader
     * elections for brokers back long enough, and unclean elections for offline partitions of topics
     * that allow them (unclean election turned on after the partition went offline) and have a live
     * replica. Call it every heartbeat interval on the leader.
     */
    public List<MetadataCommand> tick(MetadataImage image) {
        Instant now = clock.instant();
        List<MetadataCommand> commands = new ArrayList<>();
        sessions.keySet().retainAll(image.brokers().keySet());
        unfencedSince.keySet().retainAll(image.brokers().keySet());
        shuttingDown.entrySet().removeIf(e -> {
            Broker b = image.brokers().get(e.getKey());
            return b == null || !b.incarnationId().equals(e.getValue());
        });
        for (Broker b : image.brokers().values()) {
            Session session = sessions.get(b.id());
            if (session == null || !session.incarnationId().equals(b.incarnationId())) {
                session = new Session(b.incarnationId(), now);
                sessions.put(b.id(), session);
            }
            if (b.fenced()) {
                unfencedSince.remove(b.id());
                continue;
            }
            unfencedSince.putIfAbsent(b.id(), now);
            if (session.lastHeartbeat().plus(config.sessionTimeout()).isBefore(now)) {
                commands.add(new FenceBroker(b.id(), b.incarnationId()));
            }
        }
        List<TopicPartition> preferred = new ArrayList<>();
        for (Topic t : image.topics().values()) {
            for (int i = 0; i < t.partitions().size(); i++) {
                PartitionState p = t.partitions().get(i);
                int candidate = p.preferredLeader();
                if (p.leader() != candidate
                        && p.isr().contains(candidate)
                        && image.isLive(candidate)
                        && backFor(candidate, now)
                        && !expiring(candidate, commands)) {
                    preferred.add(new TopicPartition(t.name(), i));
                }
            }
        }
        if (!preferred.isEmpty()) {
            commands.add(new ElectLeaders(ElectionType.PREFERRED, preferred));
        }
        List<TopicPartition> unclean = new ArrayList<>();
        for (Topic t : image.topics().values()) {
            if (!t.uncleanLeaderElectionEnabled()) {
                continue;
            }
            for (int i = 0; i < t.partitions().size(); i++) {
                PartitionState p = t.partitions().get(i);
                if (p.offline() && p.replicas().stream().anyMatch(r -> image.isLive(r) && !expiring(r, commands))) {
                    unclean.add(new TopicPartition(t.name(), i));
                }
            }
        }
        if (!unclean.isEmpty()) {
            commands.add(new ElectLeaders(ElectionType.UNCLEAN, unclean));
        }
        return commands;
    }

    private boolean backFor(int brokerId, Instant now) {
        Instant since = unfencedSince.get(brokerId);
        return since != null && !since.plus(config.preferredLeaderDelay()).isAfter(now);
    }

    private static boolean expiring(int brokerId, List<MetadataCommand> commands) {
        return commands.stream().anyMatch(c -> c instanceof FenceBroker f && f.brokerId() == brokerId);
    }

    /** Forgets every session: call when this voter stops being the leader. */
    public void reset() {
        sessions.clear();
        unfencedSince.clear();
        shuttingDown.clear();
    }
}
