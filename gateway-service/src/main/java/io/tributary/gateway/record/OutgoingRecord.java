package io.tributary.gateway.record;

import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.apache.kafka.common.header.Header;

/**
 * A record to produce, as parsed from a request. {@code key} and {@code value} are Kafka's bytes, where
 * {@code null} is Kafka's null key (no key: the sticky partitioner spreads it) and null value (a
 * tombstone).
 *
 * @param partition the partition the record is pinned to, if any
 * @param key the key bytes, or {@code null} for none
 * @param value the value bytes, or {@code null} for a tombstone
 * @param headers the headers, in order
 * @param timestampMs the record's timestamp in epoch milliseconds, if given
 */
public record OutgoingRecord(
        OptionalInt partition, byte[] key, byte[] value, List<Header> headers, OptionalLong timestampMs) {

    public OutgoingRecord {
        headers = List.copyOf(headers);
    }

    /** Bytes of key, value and headers: what {@code max-record-size} bounds. */
    public long sizeBytes() {
        long size = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        for (Header h : headers) {
            size += h.key().length() + (h.value() == null ? 0 : h.value().length);
        }
        return size;
    }

    /** The same record pinned to {@code p}. */
    public OutgoingRecord withPartition(int p) {
        return new OutgoingRecord(OptionalInt.of(p), key, value, headers, timestampMs);
    }
}
