package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.CorruptCommandException;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.MetadataException.ErrorCode;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ReplyTest {

    @Test
    void anAppliedReplyCarriesTheMetadataVersion() {
        byte[] bytes = Reply.applied(42).encode();
        assertThat(bytes).containsExactly(1, 0, 0, 0, 0, 0, 0, 0, 0, 42);
        assertThat(Reply.decode(bytes)).isEqualTo(Reply.applied(42));
    }

    @Test
    void theReplyToAnAllocationAlsoCarriesTheFirstProducerIdInVersionTwo() {
        byte[] bytes = Reply.allocated(42, 0x0102).encode();
        assertThat(bytes).containsExactly(2, 0, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 1, 2);
        assertThat(Reply.decode(bytes)).isEqualTo(Reply.allocated(42, 0x0102));
        assertThat(Reply.decode(Reply.allocated(1, 0).encode()).firstProducerId())
                .as("the first block starts at id 0")
                .isZero();
        for (int length = 0; length < bytes.length; length++) {
            byte[] truncated = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> Reply.decode(truncated))
                    .as("truncated to %d", length)
                    .isInstanceOf(CorruptCommandException.class);
        }
        byte[] negative = bytes.clone();
        negative[10] = (byte) 0x80;
        assertThatThrownBy(() -> Reply.decode(negative)).isInstanceOf(CorruptCommandException.class);
        byte[] unknown = bytes.clone();
        unknown[0] = 3;
        assertThatThrownBy(() -> Reply.decode(unknown)).hasMessageContaining("version 3");
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void everyErrorComesBackAsItsTypedExceptionWithItsMessage(ErrorCode code) {
        Reply decoded =
                Reply.decode(Reply.failed(MetadataException.of(code, "why: ü")).encode());
        assertThat(decoded.error().code()).isEqualTo(code);
        assertThat(decoded.error()).hasMessage("why: ü");
    }

    @Test
    void aTruncatedReplyIsRejected() {
        byte[] bytes =
                Reply.failed(MetadataException.of(ErrorCode.STALE_EPOCH, "old")).encode();
        for (int length = 0; length < bytes.length; length++) {
            byte[] truncated = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> Reply.decode(truncated))
                    .as("truncated to %d", length)
                    .isInstanceOf(CorruptCommandException.class);
        }
    }
}
