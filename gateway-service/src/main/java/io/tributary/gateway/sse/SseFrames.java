package io.tributary.gateway.sse;

import java.nio.charset.StandardCharsets;

/**
 * The bytes of Server-Sent Events as the gateway writes them (UTF-8, {@code \n} line ends, each event
 * ended by an empty line). {@code data} is always one line: the record JSON has no line breaks. Stateless.
 */
public final class SseFrames {

    private SseFrames() {}

    /** {@code retry: <ms>}, sent once at the start of a stream. */
    public static byte[] retry(long retryMs) {
        return ("retry: " + retryMs + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    /** A comment line ({@code :}), the heartbeat: keeps proxies from closing an idle stream. */
    public static byte[] heartbeat() {
        return ":\n\n".getBytes(StandardCharsets.UTF_8);
    }

    /** An event with an id ({@code event: record}). */
    public static byte[] event(String name, String id, byte[] dataLine) {
        return frame(name, id, dataLine);
    }

    /** A control event without an id ({@code gap}, {@code error}): it does not move the client's position. */
    public static byte[] control(String name, byte[] dataLine) {
        return frame(name, null, dataLine);
    }

    private static byte[] frame(String name, String id, byte[] dataLine) {
        for (byte b : dataLine) {
            if (b == '\n' || b == '\r') {
                throw new IllegalArgumentException("SSE data must be one line");
            }
        }
        String head = "event: " + name + "\n" + (id == null ? "" : "id: " + id + "\n") + "data: ";
        byte[] h = head.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[h.length + dataLine.length + 2];
        System.arraycopy(h, 0, out, 0, h.length);
        System.arraycopy(dataLine, 0, out, h.length, dataLine.length);
        out[out.length - 2] = '\n';
        out[out.length - 1] = '\n';
        return out;
    }
}
