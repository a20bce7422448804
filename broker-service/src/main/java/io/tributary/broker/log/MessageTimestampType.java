package io.tributary.broker.log;

import org.apache.kafka.common.record.TimestampType;

/** Kafka's {@code message.timestamp.type}: which timestamp a topic's batches carry. */
public enum MessageTimestampType {
    /** Keep the producer's timestamps (Kafka's default). */
    CREATE_TIME,
    /** Overwrite every batch's max timestamp with the broker's clock at append time. */
    LOG_APPEND_TIME;

    TimestampType kafkaType() {
        return this == CREATE_TIME ? TimestampType.CREATE_TIME : TimestampType.LOG_APPEND_TIME;
    }
}
