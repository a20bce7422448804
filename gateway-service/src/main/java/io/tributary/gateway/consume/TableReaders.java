package io.tributary.gateway.consume;

import io.tributary.gateway.table.TableReader;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * The consumers tables are read with: at most {@code table.readers} at once, each a {@link
 * TableReader} over a consumer of its own for the whole read (a table may take long: it does not take
 * the fetch or SSE consumers). Thread-safe.
 */
public final class TableReaders implements AutoCloseable {

    /** A reader lent to one request; closing gives its consumer back. */
    public static final class Lease implements AutoCloseable {
        private final TableReaders owner;
        private final Consumer<byte[], byte[]> consumer;
        private final TableReader reader;
        private boolean closed;

        private Lease(TableReaders owner, Consumer<byte[], byte[]> consumer) {
            this.owner = owner;
            this.consumer = consumer;
            this.reader = new TableReader(consumer, owner.limits);
        }

        public TableReader reader() {
            return reader;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                owner.pool.release(consumer);
            }
        }
    }

    private final ConsumerPool pool;
    private final TableReader.Limits limits;

    public TableReaders(ConsumerPool pool, TableReader.Limits limits) {
        this.pool = pool;
        this.limits = limits;
    }

    /** A reader; 429 {@code too-many-requests} when every one is busy for the acquire timeout. */
    public Lease acquire() {
        return new Lease(this, pool.acquire());
    }

    @Override
    public void close() {
        pool.close();
    }
}
