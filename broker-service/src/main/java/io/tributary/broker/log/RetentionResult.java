package io.tributary.broker.log;

/**
 * What a retention run deleted.
 *
 * @param segmentsDeleted whole closed segments removed
 * @param bytesDeleted their total size
 * @param logStartOffset the log start offset afterwards
 */
public record RetentionResult(int segmentsDeleted, long bytesDeleted, long logStartOffset) {}
