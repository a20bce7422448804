/**
 * Server-Sent Event streams and their cursors: an SSE event id is the stream's position (the next
 * offset of every partition in it), so any gateway replica resumes a stream exactly from {@code
 * Last-Event-ID}. Core: plain Java, no Spring (an architecture test enforces it); the controllers
 * that write the streams live at the edge.
 */
package io.tributary.gateway.sse;
