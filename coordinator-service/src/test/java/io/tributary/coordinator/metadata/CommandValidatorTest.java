package io.tributary.coordinator.metadata;

import static io.tributary.coordinator.metadata.Fixtures.createTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.MetadataCommand.AddPartitions;
import io.tributary.coordinator.metadata.MetadataCommand.AllocateProducerIds;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The limits the Raft leader checks before a command is appended, and the dry run on its image. */
class CommandValidatorTest {

    private final CommandValidator validator = new CommandValidator(new MetadataLimits(1 << 20, 3, 100));
    private final MetadataImage image = Fixtures.liveBrokers(3, 3).apply(createTopic("t", List.of(List.of(0))));

    @Test
    void addingPartitionsUpToTheLimitIsAcceptedAndPastItIsInvalidPartitions() {
        assertThat(validator
                        .validate(image, new AddPartitions("t", 1, List.of(List.of(1), List.of(2))))
                        .topic("t")
                        .partitions())
                .hasSize(3);
        assertThatThrownBy(() -> validator.validate(
                        image, new AddPartitions("t", 1, List.of(List.of(1), List.of(2), List.of(0)))))
                .isInstanceOf(InvalidPartitionsException.class)
                .hasMessageContaining("would have 4 partitions; the limit is 3");
    }

    @Test
    void addingPartitionsToAnUnknownTopicIsUnknownTopic() {
        assertThatThrownBy(() -> validator.validate(image, new AddPartitions("u", 1, List.of(List.of(1)))))
                .isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void aProducerIdBlockUpToTheLimitIsAcceptedAndALargerOneIsInvalid() {
        assertThat(validator.validate(image, new AllocateProducerIds(0, 100)).nextProducerId())
                .isEqualTo(100);
        assertThatThrownBy(() -> validator.validate(image, new AllocateProducerIds(0, 101)))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("at most 100");
        assertThatThrownBy(() -> validator.validate(image, new AllocateProducerIds(0, 0)))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> validator.validate(image, new AllocateProducerIds(7, 1)))
                .isInstanceOf(UnknownBrokerException.class);
    }

    @Test
    void theEncodedFormIsValidatedToo() {
        assertThat(validator.validate(image, CommandCodec.encode(new AllocateProducerIds(2, 5))))
                .isEqualTo(new AllocateProducerIds(2, 5));
        assertThatThrownBy(() -> validator.validate(image, CommandCodec.encode(new AllocateProducerIds(2, 500))))
                .isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void theLimitsMustBePositive() {
        assertThatThrownBy(() -> new MetadataLimits(1 << 20, 3, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
