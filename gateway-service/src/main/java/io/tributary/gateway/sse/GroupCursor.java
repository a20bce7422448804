package io.tributary.gateway.sse;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A group stream's position: for every partition the stream holds, of any of its topics, the offset
 * of the next record to deliver; and the stream's lineage, a random number a client's first stream
 * draws and every stream resumed from its cursors keeps. The gateway stamps its commits with the
 * lineage, so a stream resuming knows whether a committed offset is its own (written to a connection
 * the client may not have read to the end: the cursor wins) or another member's (then the later of
 * the two wins, so nothing committed is delivered again). Topics are named by their id (Kafka's
 * {@code Uuid} as 22 base64url characters), so a re-created topic of the same name is noticed.
 * Immutable; {@link GroupCursorCodec} writes it as an SSE event id.
 *
 * @param lineage the stream lineage
 * @param nextOffsets topic id to (partition to next offset); may be empty (a stream holding nothing)
 */
public record GroupCursor(long lineage, SortedMap<String, SortedMap<Integer, Long>> nextOffsets) {

    public GroupCursor {
        TreeMap<String, SortedMap<Integer, Long>> copy = new TreeMap<>();
        for (Map.Entry<String, SortedMap<Integer, Long>> t : nextOffsets.entrySet()) {
            if (t.getKey() == null || !t.getKey().matches("[A-Za-z0-9_-]{22}")) {
                throw new IllegalArgumentException("topic id must be 22 base64url characters: " + t.getKey());
            }
            if (t.getValue().isEmpty()) {
                continue;
            }
            for (Map.Entry<Integer, Long> e : t.getValue().entrySet()) {
                if (e.getKey() < 0 || e.getValue() < 0) {
                    throw new IllegalArgumentException("partitions and offsets are not negative: " + e);
                }
            }
            copy.put(t.getKey(), Collections.unmodifiableSortedMap(new TreeMap<>(t.getValue())));
        }
        nextOffsets = Collections.unmodifiableSortedMap(copy);
    }

    /** The cursor of a new lineage holding nothing. */
    public static GroupCursor empty(long lineage) {
        return new GroupCursor(lineage, new TreeMap<>());
    }

    /** The commit metadata that names this lineage. */
    public String commitMetadata() {
        return "tributary-stream:" + Long.toHexString(lineage);
    }

    /** The next offset of {@code partition} of the topic {@code topicId}, or null when the cursor does not name it. */
    public Long nextOffset(String topicId, int partition) {
        SortedMap<Integer, Long> p = nextOffsets.get(topicId);
        return p == null ? null : p.get(partition);
    }
}
