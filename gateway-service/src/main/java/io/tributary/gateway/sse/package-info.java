/**
 * Server-Sent Event streams and their cursors: an SSE event id is the stream's position (the next
 * offset of every partition in it, and the topic's id), so any gateway replica resumes a stream
 * exactly from {@code Last-Event-ID}. {@link io.tributary.gateway.sse.CursorCodec} defines the id's
 * format byte by byte; {@link io.tributary.gateway.sse.SseFrames} the bytes of each event; {@link
 * io.tributary.gateway.sse.RecordEvent} the event of one record ({@code record}, or {@code delete}
 * for a tombstone, both with the stream's cursor as id); {@link
 * io.tributary.gateway.sse.StreamBuffer} bounds what one stream holds between the cluster and its
 * client; {@link io.tributary.gateway.sse.StreamState} is a stream's position and who feeds each of
 * its partitions; {@link io.tributary.gateway.sse.SharedTailReaders} fetches each partition's end
 * once for every stream there. Group streams (one member of a consumer group each) have their own
 * cursor, {@link io.tributary.gateway.sse.GroupCursor} ({@link
 * io.tributary.gateway.sse.GroupCursorCodec}: several topics, and the stream lineage), and {@link
 * io.tributary.gateway.sse.GroupStreamState}, which also tracks what was written to the client
 * (what {@code commit=auto} commits).
 *
 * <p>Invariant: the id of an event is the position after that event and every event before it, so a
 * client that resumes from it gets each record exactly once. Control events ({@code gap}, {@code
 * error}) carry no id. Core: plain Java, no Spring (an architecture test enforces it); the controller
 * that writes the streams ({@code consume.EventStreamController}) lives at the edge. {@code
 * SharedTailReaders} uses kafka-clients' consumer (plain Java).
 */
package io.tributary.gateway.sse;
