package io.tributary.coordinator.group;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A simulated kafka-clients 4.x consumer of {@link GroupSimulationTest}: what it subscribes to, its
 * member id and epoch, what it owns (and the next offset it would commit), what it is revoking, and
 * its one heartbeat in flight.
 */
final class SimulatedMember {
    final int slot;
    final Optional<String> instanceId;
    /** Topic names it subscribes to; empty when it subscribes by {@link #regex}. */
    final List<String> topics;
    /** A regular expression it subscribes with instead (RE2 syntax, full match). */
    final Optional<String> regex;

    String memberId;
    int incarnation;
    boolean alive;
    int epoch;
    boolean needFull = true;
    long inFlightRequest = -1;
    long inFlightSentAt;
    long requestCounter;
    /** What this member consumes now, and the next offset it would commit. */
    final Map<TopicIdPartition, Long> owned = new TreeMap<>();
    /** Partitions it was told to revoke and has not yet (a slow member). */
    final SortedSet<TopicIdPartition> revoking = new TreeSet<>();

    long revokeAt = Long.MAX_VALUE;
    long lastMessageAt;

    SimulatedMember(int slot, Optional<String> instanceId, List<String> topics, Optional<String> regex) {
        this.regex = regex;
        this.slot = slot;
        this.instanceId = instanceId;
        this.topics = topics;
    }
}
