package io.tributary.coordinator.api;

import java.net.URI;

/** This voter is a follower: the request is answered with 307 to the same path on the leader. */
final class NotLeaderException extends RuntimeException {

    private final URI location;

    NotLeaderException(URI location) {
        super("not the metadata leader; the leader is at " + location);
        this.location = location;
    }

    URI location() {
        return location;
    }
}
