package io.tributary.broker.replication;

/** Leadership work asked of a replica that does not lead (Kafka's {@code NOT_LEADER_OR_FOLLOWER}). */
public final class NotLeaderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NotLeaderException(String message) {
        super(message);
    }
}
