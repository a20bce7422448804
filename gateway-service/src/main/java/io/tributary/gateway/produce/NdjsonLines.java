package io.tributary.gateway.produce;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * Reads an NDJSON body one line at a time, never holding more than one line (at most {@code
 * maxLineBytes}) in memory. Blank lines are skipped. Not thread-safe.
 */
final class NdjsonLines {

    /** One line, or the fact that it was longer than allowed (its bytes were skipped). */
    record Line(byte[] bytes, boolean tooLong) {}

    private final InputStream in;
    private final int maxLineBytes;
    private final byte[] buffer = new byte[8192];
    private int pos;
    private int limit;

    NdjsonLines(InputStream in, int maxLineBytes) {
        this.in = in;
        this.maxLineBytes = maxLineBytes;
    }

    /** The next non-blank line, or empty at the end of the body. */
    Optional<Line> next() throws IOException {
        while (true) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            boolean tooLong = false;
            boolean any = false;
            while (true) {
                if (pos == limit) {
                    limit = in.read(buffer);
                    pos = 0;
                    if (limit <= 0) {
                        limit = 0;
                        if (!any) {
                            return Optional.empty();
                        }
                        break;
                    }
                }
                any = true;
                int start = pos;
                while (pos < limit && buffer[pos] != '\n') {
                    pos++;
                }
                int n = pos - start;
                if (!tooLong && line.size() + n > maxLineBytes) {
                    tooLong = true;
                    line.reset();
                }
                if (!tooLong) {
                    line.write(buffer, start, n);
                }
                if (pos < limit) {
                    pos++; // the '\n'
                    break;
                }
            }
            byte[] bytes = line.toByteArray();
            if (tooLong) {
                return Optional.of(new Line(new byte[0], true));
            }
            if (!isBlank(bytes)) {
                return Optional.of(new Line(bytes, false));
            }
        }
    }

    /** Whether bytes are buffered or readable without blocking (if not, the writer should flush). */
    boolean ready() throws IOException {
        return pos < limit || in.available() > 0;
    }

    private static boolean isBlank(byte[] bytes) {
        for (byte b : bytes) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }
}
