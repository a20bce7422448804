package io.tributary.broker.log.index;

/**
 * A time-index entry: {@code timestamp} is the largest batch max-timestamp in the log up to and
 * including the batch whose base offset is {@code offset}, and that batch is the first to reach it.
 */
public record TimestampOffset(long timestamp, long offset) {}
