package io.tributary.gateway.sse;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.BackgroundFailures;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StreamBufferTest {

    @Test
    void offersBeyondTheCapacityWaitThenFail() throws InterruptedException {
        StreamBuffer buffer = new StreamBuffer(10);
        assertThat(buffer.offer(new byte[6], Duration.ZERO)).isTrue();
        assertThat(buffer.offer(new byte[4], Duration.ZERO)).isTrue();
        assertThat(buffer.offer(new byte[1], Duration.ofMillis(1))).isFalse();
        assertThat(buffer.poll(Duration.ZERO))
                .hasValueSatisfying(f -> assertThat(f).hasSize(6));
        assertThat(buffer.offer(new byte[6], Duration.ZERO)).isTrue();
    }

    @Test
    void oneFrameLargerThanTheCapacityPassesAloneWhenTheBufferIsEmpty() throws InterruptedException {
        StreamBuffer buffer = new StreamBuffer(10);
        assertThat(buffer.offer(new byte[100], Duration.ZERO)).isTrue();
        assertThat(buffer.offer(new byte[1], Duration.ZERO)).isFalse();
    }

    @Test
    void closingKeepsWhatIsInButTakesNothingNew() throws InterruptedException {
        StreamBuffer buffer = new StreamBuffer(10);
        buffer.offer(new byte[] {1}, Duration.ZERO);
        buffer.close();
        assertThat(buffer.offer(new byte[] {2}, Duration.ZERO)).isFalse();
        assertThat(buffer.isDrained()).isFalse();
        assertThat(buffer.poll(Duration.ofSeconds(30)))
                .hasValueSatisfying(f -> assertThat(f).containsExactly(1));
        assertThat(buffer.poll(Duration.ofSeconds(30))).isEmpty(); // closed: returns at once
        assertThat(buffer.isDrained()).isTrue();
    }

    @Test
    void aWaitingReaderWakesWhenAFrameArrives() throws Exception {
        StreamBuffer buffer = new StreamBuffer(10);
        var background = new BackgroundFailures();
        BackgroundFailures.Task writer =
                background.start("writer", task -> buffer.offer(new byte[] {7}, Duration.ZERO));
        assertThat(buffer.poll(Duration.ofSeconds(30)))
                .hasValueSatisfying(f -> assertThat(f).containsExactly(7));
        writer.join(Duration.ofSeconds(30));
        background.check();
    }
}
