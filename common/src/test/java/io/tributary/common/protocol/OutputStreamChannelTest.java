package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The TLS listener's channel: file regions sent through its own buffer, in order and whole. */
class OutputStreamChannelTest {

    @TempDir
    Path dir;

    @Test
    void aRegionLargerThanTheBufferArrivesWholeAfterWhatWasWrittenBefore() throws IOException {
        byte[] content = randomBytes(3 * OutputStreamChannel.BUFFER_BYTES + 1234);
        Path file = Files.write(dir.resolve("segment"), content);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        long position = 777;
        long count = content.length - position - 100;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                OutputStreamChannel out = new OutputStreamChannel(sink)) {
            out.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            SocketTransferableChannel transferable = new SocketTransferableChannel(out);
            long sent = 0;
            while (sent < count) {
                long n = transferable.transferFrom(channel, position + sent, count - sent);
                assertThat(n).as("each call sends something").isPositive().isLessThanOrEqualTo(count - sent);
                sent += n;
            }
            out.flush();
        }
        byte[] expected = new byte[3 + (int) count];
        expected[0] = 1;
        expected[1] = 2;
        expected[2] = 3;
        System.arraycopy(content, (int) position, expected, 3, (int) count);
        assertThat(Arrays.equals(sink.toByteArray(), expected))
                .as("the bytes sent are the header then the region, in order")
                .isTrue();
    }

    @Test
    void aRegionPastTheEndOfTheFileSendsWhatThereIsThenNothing() throws IOException {
        byte[] content = randomBytes(1000);
        Path file = Files.write(dir.resolve("short"), content);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                OutputStreamChannel out = new OutputStreamChannel(sink)) {
            assertThat(out.transferFrom(channel, 900, 500)).isEqualTo(100);
            assertThat(out.transferFrom(channel, 1000, 500)).isZero();
            assertThat(out.transferFrom(channel, 0, 0)).isZero();
            out.flush();
        }
        assertThat(sink.toByteArray()).isEqualTo(Arrays.copyOfRange(content, 900, 1000));
    }

    @Test
    void aClosedChannelRefusesARegion() throws IOException {
        Path file = Files.write(dir.resolve("closed"), randomBytes(10));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            OutputStreamChannel out = new OutputStreamChannel(new ByteArrayOutputStream());
            out.close();
            assertThatThrownBy(() -> out.transferFrom(channel, 0, 10)).isInstanceOf(ClosedChannelException.class);
        }
    }

    private static byte[] randomBytes(int size) {
        byte[] bytes = new byte[size];
        new Random(42).nextBytes(bytes);
        return bytes;
    }
}
