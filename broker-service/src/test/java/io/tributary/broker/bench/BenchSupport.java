package io.tributary.broker.bench;

import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.ProducerStateConfig;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.common.protocol.SocketTransferableChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Shared pieces of the storage benchmarks. */
final class BenchSupport {

    private BenchSupport() {}

    /** One uncompressed v2 batch of {@code count} records of {@code valueBytes} random bytes each. */
    static MemoryRecords batch(RandomGenerator random, int count, int valueBytes, long timestampMs) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            records[i] = new SimpleRecord(timestampMs, null, value);
        }
        return MemoryRecords.withRecords(
                RecordBatch.MAGIC_VALUE_V2, 0L, Compression.NONE, TimestampType.CREATE_TIME, records);
    }

    /** A fresh partition log of a new topic id under {@code dir/data}, default config, system clock. */
    static PartitionLog openLog(Path dir, IndexStore store) {
        return openLog(dir, store, Runnable::run);
    }

    /** A log whose rolled segments {@code rollFlusher} fsyncs (the broker passes its {@code RollFlusher}). */
    static PartitionLog openLog(Path dir, IndexStore store, Executor rollFlusher) {
        return PartitionLog.open(
                dir.resolve("data"),
                new TopicIdPartition(Uuid.randomUuid(), 0, "bench"),
                LogConfig.defaults(),
                ProducerStateConfig.defaults(),
                store,
                InstantSource.system(),
                rollFlusher);
    }

    static Path tempDir(String prefix) {
        try {
            Path base = Path.of(System.getProperty("tributary.bench.dir", System.getProperty("java.io.tmpdir")));
            Files.createDirectories(base);
            return Files.createTempDirectory(base, prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A loopback TCP connection whose far end a thread of its own reads and drops: the sink a
     * broker's fetch response really goes to. {@code transferFrom} is {@code FileChannel.transferTo}
     * into the socket, which the kernel does without copying through the JVM (sendfile), as the
     * broker's listener does ({@code SocketTransferableChannel} in common).
     */
    static final class LoopbackSocketSink extends SocketTransferableChannel {
        private final ServerSocketChannel server;
        private final SocketChannel sending;
        private final SocketChannel receiving;
        private final Thread drain;

        LoopbackSocketSink() throws IOException {
            this(ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        }

        private LoopbackSocketSink(ServerSocketChannel server) throws IOException {
            this(server, SocketChannel.open(server.getLocalAddress()));
        }

        private LoopbackSocketSink(ServerSocketChannel server, SocketChannel sending) throws IOException {
            super(sending);
            this.server = server;
            this.sending = sending;
            receiving = server.accept();
            drain = Thread.ofPlatform().name("loopback-sink-drain").daemon(true).start(() -> {
                ByteBuffer buffer = ByteBuffer.allocateDirect(1024 * 1024);
                try {
                    while (receiving.read(buffer.clear()) >= 0) {
                        // dropped
                    }
                } catch (IOException e) {
                    // closed by close()
                }
            });
        }

        @Override
        public void close() throws IOException {
            sending.close();
            try {
                drain.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            receiving.close();
            server.close();
        }
    }

    /**
     * {@code /dev/null} as a sink: {@code transferTo} into it is a {@code sendfile} whose destination
     * drops the pages without reading them, so a transfer costs almost nothing and what remains of a
     * fetch is the engine's own work (index lookup, header read, slice). The harshest baseline for the
     * engine's overhead; no broker sends anywhere this cheap.
     */
    static final class DevNullSink extends SocketTransferableChannel {
        DevNullSink() throws IOException {
            super(FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE));
        }
    }

    /**
     * A stand-in for the network that accepts and drops every byte. {@code transferFrom} goes
     * through {@code FileChannel.transferTo}, but into a Java channel, for which the JDK has no
     * zero-copy path: it reads the region into a temporary buffer and hands that to {@link
     * #write(ByteBuffer)}, one copy a socket send would not make.
     */
    static final class DiscardingChannel implements TransferableChannel {
        long bytes;

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
            return fileChannel.transferTo(position, count, this);
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
            bytes += n;
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }
}
