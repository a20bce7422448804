package io.tributary.broker.log.cleaner;

import io.tributary.broker.log.PartitionLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/** Damages a log's segment file on disk as a bad disk would, for tests of the cleaner's failures. */
public final class CorruptSegments {

    private CorruptSegments() {}

    /**
     * Overwrites the first record of the log's first segment (the bytes after its first batch's
     * 61-byte header) with 0xFF, so that decoding it fails (its length varint is too long); batch
     * headers stay readable, so the log still opens and serves its sizes.
     */
    public static void corruptFirstRecord(PartitionLog log) {
        Path file = log.directory().resolve("00000000000000000000.log");
        byte[] garbage = new byte[12];
        Arrays.fill(garbage, (byte) 0xFF);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(garbage), 61);
            channel.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
