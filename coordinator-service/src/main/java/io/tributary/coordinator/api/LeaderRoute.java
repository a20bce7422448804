package io.tributary.coordinator.api;

import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * Where a write goes: here (this voter is the ready leader), to another voter's control plane (a
 * 307 redirect), or nowhere yet (503: no leader known, or this voter was just elected and is not
 * ready).
 *
 * @param httpPeers every voter's control-plane {@code host:port}, in id order (as Raft's peers)
 */
record LeaderRoute(int selfId, List<String> httpPeers) {

    /** The decision for one request. */
    sealed interface Decision {}

    record Here() implements Decision {}

    record Redirect(URI leaderBase) implements Decision {}

    record Unavailable(String why) implements Decision {}

    LeaderRoute {
        httpPeers = List.copyOf(httpPeers);
        if (selfId < 0 || selfId >= httpPeers.size()) {
            throw new IllegalArgumentException("coordinator id " + selfId + " is not an index into " + httpPeers);
        }
    }

    /**
     * @param isLeader whether this voter is the leader and ready for writes
     * @param leaderId the leader this voter knows ({@code c0}, {@code c1}...), if any
     * @param scheme the request's scheme, {@code http} or {@code https}: the leader's control plane is
     *     reached the same way (every voter serves HTTPS, or none)
     */
    Decision decide(boolean isLeader, Optional<String> leaderId, String scheme) {
        if (isLeader) {
            return new Here();
        }
        if (leaderId.isEmpty()) {
            return new Unavailable("no metadata leader is known (an election is under way)");
        }
        String id = leaderId.get();
        int index;
        try {
            index = Integer.parseInt(id.substring(1));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return new Unavailable("the metadata leader '" + id + "' is not a known voter");
        }
        if (index == selfId) {
            return new Unavailable("this voter was elected and is not ready for writes yet");
        }
        if (index < 0 || index >= httpPeers.size()) {
            return new Unavailable("the metadata leader '" + id + "' is not a known voter");
        }
        return new Redirect(
                URI.create(("https".equalsIgnoreCase(scheme) ? "https://" : "http://") + httpPeers.get(index)));
    }
}
