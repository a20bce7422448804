package io.tributary.broker.bench;

import io.tributary.broker.log.LogConfig;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.index.IndexStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Comparator;
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
        return PartitionLog.open(
                dir.resolve("data"),
                new TopicIdPartition(Uuid.randomUuid(), 0, "bench"),
                LogConfig.defaults(),
                store,
                InstantSource.system());
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
     * A network stand-in that accepts and drops every byte. {@code transferFrom} goes through
     * {@code FileChannel.transferTo}, as a socket send of a fetch response would.
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
