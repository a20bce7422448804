package io.tributary.coordinator.metadata;

/**
 * Bytes that do not decode as a command, reply or snapshot of a known format version. Applied log
 * entries are decoded by every voter, so this on a committed entry means a bug or a corrupt disk and
 * stops the state machine; on a client request it is rejected before it is appended.
 */
public final class CorruptCommandException extends RuntimeException {

    public CorruptCommandException(String message) {
        super(message);
    }

    public CorruptCommandException(String message, Throwable cause) {
        super(message, cause);
    }
}
