package io.tributary.gateway.sse;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A stream's position: the topic's id (Kafka's {@code Uuid} in its 22-character base64url form, so a
 * re-created topic of the same name is noticed) and, for every partition of the stream, the offset of
 * the next record to deliver. Immutable; {@link CursorCodec} writes it as an SSE event id.
 *
 * @param topicId the topic's id, 22 characters of {@code [A-Za-z0-9_-]}
 * @param nextOffsets partition number to next offset, at least one partition, sorted by partition
 */
public record StreamCursor(String topicId, SortedMap<Integer, Long> nextOffsets) {

    public StreamCursor {
        if (topicId == null || !topicId.matches("[A-Za-z0-9_-]{22}")) {
            throw new IllegalArgumentException("topic id must be 22 base64url characters: " + topicId);
        }
        if (nextOffsets.isEmpty()) {
            throw new IllegalArgumentException("a cursor names at least one partition");
        }
        for (Map.Entry<Integer, Long> e : nextOffsets.entrySet()) {
            if (e.getKey() < 0 || e.getValue() < 0) {
                throw new IllegalArgumentException("partitions and offsets are not negative: " + e);
            }
        }
        nextOffsets = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(nextOffsets));
    }

    /** This cursor with {@code partition}'s next offset set to {@code nextOffset}. */
    public StreamCursor with(int partition, long nextOffset) {
        TreeMap<Integer, Long> copy = new TreeMap<>(nextOffsets);
        copy.put(partition, nextOffset);
        return new StreamCursor(topicId, copy);
    }
}
