package io.tributary.broker.log.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CleanerCheckpointTest {

    @Test
    void encodesTheOffsetThenTheHorizonOrMinusOneInSixteenBytes() {
        CleanerCheckpoint withHorizon = new CleanerCheckpoint(4096, OptionalLong.of(1_001_000));

        ByteBuffer bytes = ByteBuffer.wrap(withHorizon.encode());

        assertThat(bytes.capacity()).isEqualTo(16);
        assertThat(bytes.getLong(0)).isEqualTo(4096);
        assertThat(bytes.getLong(8)).isEqualTo(1_001_000);
        assertThat(ByteBuffer.wrap(CleanerCheckpoint.at(7).encode()).getLong(8)).isEqualTo(-1);
        assertThat(CleanerCheckpoint.decode(withHorizon.encode())).hasValue(withHorizon);
        assertThat(CleanerCheckpoint.decode(CleanerCheckpoint.at(7).encode())).hasValue(CleanerCheckpoint.at(7));
    }

    @Test
    void readsAnEightByteValueAsTheOffsetWithNoKnownHorizon() {
        byte[] older = ByteBuffer.allocate(8).putLong(4096).array();

        assertThat(CleanerCheckpoint.decode(older)).hasValue(CleanerCheckpoint.at(4096));
        assertThat(CleanerCheckpoint.decode(new byte[12])).isEmpty();
        assertThat(CleanerCheckpoint.decode(null)).isEmpty();
    }
}
