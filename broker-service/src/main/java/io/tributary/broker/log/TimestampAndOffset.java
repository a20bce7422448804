package io.tributary.broker.log;

import java.util.OptionalInt;

/**
 * A ListOffsets answer: a record's offset, its timestamp (-1 for the earliest and latest queries,
 * as in Kafka) and the leader epoch that wrote it, when known.
 */
public record TimestampAndOffset(long timestamp, long offset, OptionalInt leaderEpoch) {}
