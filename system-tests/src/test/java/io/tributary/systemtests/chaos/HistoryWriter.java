package io.tributary.systemtests.chaos;

import io.tributary.systemtests.JsonText;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An append-only history file: one JSON object per line, one line per {@link Operation}, flushed
 * after each line so that a crashed run leaves everything recorded up to the crash. Thread-safe
 * (every producer, consumer and the nemesis write to one writer). The events are also kept in
 * memory for the checker ({@link #events()}).
 *
 * <p>The line format (fields always present, in this order; strings JSON-escaped; null for absent
 * strings):
 *
 * <pre>{"process":"p0","type":"SEND","phase":"OK","partition":1,"offset":42,"value":"p0-17","epoch":-1,"nanos":123456,"error":null}</pre>
 */
public final class HistoryWriter implements Closeable {

    private final BufferedWriter out;
    private final long origin = System.nanoTime();
    private final List<Operation> events = new ArrayList<>();

    public HistoryWriter(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            this.out = Files.newBufferedWriter(
                    file,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Nanoseconds on the monotonic clock since this writer was created. */
    public long now() {
        return System.nanoTime() - origin;
    }

    /** Appends one event and flushes it. */
    public synchronized void append(Operation operation) {
        try {
            out.write(toJson(operation));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        events.add(operation);
    }

    /** Every event appended so far, in order. */
    public synchronized List<Operation> events() {
        return List.copyOf(events);
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String toJson(Operation o) {
        return "{\"process\":" + JsonText.quote(o.process())
                + ",\"type\":" + JsonText.quote(o.type().name())
                + ",\"phase\":" + JsonText.quote(o.phase().name())
                + ",\"partition\":" + o.partition()
                + ",\"offset\":" + o.offset()
                + ",\"value\":" + JsonText.quote(o.value())
                + ",\"epoch\":" + o.leaderEpoch()
                + ",\"nanos\":" + o.nanos()
                + ",\"error\":" + JsonText.quote(o.error())
                + "}";
    }
}
