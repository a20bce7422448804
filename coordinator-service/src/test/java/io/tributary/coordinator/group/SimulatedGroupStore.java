package io.tributary.coordinator.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.Errors;

/**
 * The Raft log as the group simulation sees it: writes a coordinator queued are drained (sent) and
 * later applied (committed), in order, at the simulation's choosing; what is applied is folded as
 * the metadata image does ({@link StoredConsumerGroup#apply}) and reported to the coordinator, whose
 * waiting answers then go out. Writes drained but not applied when the coordinator dies are lost
 * (an unacknowledged write); a failed write is reported as such and the rest drained with it are
 * dropped (the coordinator discards them with its state).
 */
final class SimulatedGroupStore {

    private final Map<String, StoredConsumerGroup> stored = new TreeMap<>();
    private final List<PendingWrites.Write> inFlight = new ArrayList<>();

    /** Moves the coordinator's queued writes into the log (not yet applied). */
    void drain(GroupCoordinator coordinator) {
        inFlight.addAll(coordinator.drainWrites());
    }

    /** How many writes are drained and not applied. */
    int inFlight() {
        return inFlight.size();
    }

    /**
     * Applies the first {@code count} drained writes in order and reports each.
     *
     * @return how many were applied
     */
    int apply(GroupCoordinator coordinator, int count) {
        int applied = 0;
        for (int i = 0; i < count && !inFlight.isEmpty(); i++) {
            PendingWrites.Write write = inFlight.removeFirst();
            if (!coordinator.live(write)) {
                continue;
            }
            applyToLog(write);
            coordinator.written(write);
            applied++;
        }
        return applied;
    }

    /**
     * Fails the first drained write (the coordinator drops its state and must load again);
     * {@code committedAnyway}: the write reached the log all the same (an unknown outcome that
     * turned out committed).
     *
     * @return the write that failed, if there was one
     */
    Optional<PendingWrites.Write> failFirst(GroupCoordinator coordinator, Errors error, boolean committedAnyway) {
        while (!inFlight.isEmpty() && !coordinator.live(inFlight.getFirst())) {
            inFlight.removeFirst();
        }
        if (inFlight.isEmpty()) {
            return Optional.empty();
        }
        PendingWrites.Write write = inFlight.removeFirst();
        if (committedAnyway) {
            applyToLog(write);
        }
        coordinator.writeFailed(write, error);
        inFlight.clear();
        return Optional.of(write);
    }

    /**
     * Drops the drained writes (their coordinator died before they were committed).
     *
     * @return how many were lost
     */
    int loseInFlight() {
        int lost = inFlight.size();
        inFlight.clear();
        return lost;
    }

    /** What a new leader loads. */
    Collection<StoredConsumerGroup> groups() {
        return List.copyOf(stored.values());
    }

    private void applyToLog(PendingWrites.Write write) {
        switch (write) {
            case PendingWrites.Append append ->
                stored.put(
                        append.groupId(),
                        stored.getOrDefault(append.groupId(), StoredConsumerGroup.empty(append.groupId()))
                                .apply(append.records()));
            case PendingWrites.Delete delete -> stored.remove(delete.groupId());
        }
    }
}
