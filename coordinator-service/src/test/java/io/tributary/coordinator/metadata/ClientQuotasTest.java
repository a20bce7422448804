package io.tributary.coordinator.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaEntityType;
import io.tributary.common.security.quota.QuotaKey;
import io.tributary.coordinator.metadata.MetadataCommand.AlterClientQuotas;
import io.tributary.coordinator.metadata.MetadataCommand.QuotaChange;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Client quotas in the metadata image: the command's rules, its bytes and the image's quota section. */
class ClientQuotasTest {

    static LongStream seeds() {
        return LongStream.range(0, 100);
    }

    private static final QuotaEntity ALICE = QuotaEntity.user(Optional.of("alice"));
    private static final QuotaEntity DEFAULT_USER = QuotaEntity.user(Optional.empty());

    private static QuotaChange set(QuotaEntity entity, QuotaKey key, double value) {
        return new QuotaChange(entity, Set.of(), Map.of(key, value));
    }

    private static QuotaChange remove(QuotaEntity entity, QuotaKey key) {
        return new QuotaChange(entity, Set.of(key), Map.of());
    }

    @Test
    void settingAQuotaBumpsTheVersionAndTheSameCommandAgainChangesNothing() {
        MetadataImage image = Fixtures.liveBrokers(1, 1);
        AlterClientQuotas command = new AlterClientQuotas(List.of(set(ALICE, QuotaKey.PRODUCER_BYTE_RATE, 1024)));

        MetadataImage next = image.apply(command);

        assertThat(next.version()).isEqualTo(image.version() + 1);
        assertThat(next.clientQuotas().asMap())
                .containsExactly(Map.entry(ALICE, Map.of(QuotaKey.PRODUCER_BYTE_RATE, 1024.0)));
        assertThat(next.apply(command)).isSameAs(next);
    }

    @Test
    void removingAnEntitysLastValueRemovesTheEntityAndRemovingAMissingValueChangesNothing() {
        MetadataImage image = MetadataImage.EMPTY.apply(new AlterClientQuotas(
                List.of(set(ALICE, QuotaKey.PRODUCER_BYTE_RATE, 1024), set(ALICE, QuotaKey.CONSUMER_BYTE_RATE, 2048))));

        MetadataImage one = image.apply(new AlterClientQuotas(List.of(remove(ALICE, QuotaKey.PRODUCER_BYTE_RATE))));
        MetadataImage none = one.apply(new AlterClientQuotas(List.of(remove(ALICE, QuotaKey.CONSUMER_BYTE_RATE))));

        assertThat(one.clientQuotas().asMap().get(ALICE)).containsOnlyKeys(QuotaKey.CONSUMER_BYTE_RATE);
        assertThat(none.clientQuotas().size()).isZero();
        assertThat(none.apply(new AlterClientQuotas(List.of(remove(ALICE, QuotaKey.CONSUMER_BYTE_RATE)))))
                .isSameAs(none);
    }

    @Test
    void aCommandWithAValueKafkaRefusesIsRejected() {
        assertThatThrownBy(() -> MetadataImage.EMPTY.apply(
                        new AlterClientQuotas(List.of(set(ALICE, QuotaKey.PRODUCER_BYTE_RATE, 0)))))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> MetadataImage.EMPTY.apply(
                        new AlterClientQuotas(List.of(set(ALICE, QuotaKey.CONNECTION_CREATION_RATE, 5)))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("does not apply");
    }

    @Test
    void alterClientQuotasHasTheDocumentedBytes() {
        HexFormat hex = HexFormat.ofDelimiter(" ").withUpperCase();
        AlterClientQuotas command = new AlterClientQuotas(
                List.of(set(QuotaEntity.user(Optional.of("u")), QuotaKey.PRODUCER_BYTE_RATE, 1024)));
        String documented =
                "09 16 00 00 00 01 01 01 01 00 00 00 01 75 00 00 00 00 00 00 00 01 01 40 90 00 00 00 00 00 00";

        assertThat(hex.formatHex(CommandCodec.encode(command))).isEqualTo(documented);
        assertThat(CommandCodec.decode(hex.parseHex(documented))).isEqualTo(command);
    }

    @Test
    void alterClientQuotasInAVersionEightCommandIsCorrupt() {
        byte[] bytes = CommandCodec.encode(new AlterClientQuotas(List.of(set(ALICE, QuotaKey.PRODUCER_BYTE_RATE, 1))));
        bytes[0] = 8;

        assertThatThrownBy(() -> CommandCodec.decode(bytes)).isInstanceOf(CorruptCommandException.class);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void quotaCommandsRoundTripAndEveryTruncationIsRejected(long seed) {
        RandomGenerator r = new Random(seed);
        CodecTest.assertRoundTripAndRejectedTruncations(new AlterClientQuotas(randomChanges(r, 5)), seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void imagesWithQuotasRoundTripCanonically(long seed) {
        RandomGenerator r = new Random(seed);
        MetadataImage image = Fixtures.liveBrokers(2, 1).apply(new AlterClientQuotas(randomChanges(r, 20)));

        CodecTest.assertImageRoundTripsCanonicallyAndAFlippedBitIsCaught(image, r, seed);
    }

    @Test
    void aVersionEightImageLoadsWithoutQuotas() {
        MetadataImage image = Fixtures.liveBrokers(2, 1);

        MetadataImage decoded = ImageCodec.decode(CodecTest.asVersionEight(ImageCodec.encode(image)));

        assertThat(decoded).isEqualTo(image);
        assertThat(decoded.clientQuotas().size()).isZero();
    }

    @Test
    void theValidatorRefusesANewEntityPastTheBoundButNeverARemoval() {
        MetadataLimits limits = new MetadataLimits(1 << 20, 10, 100, 2, 3, 4, 2, 2, 2, 2, 1);
        CommandValidator validator = new CommandValidator(limits);
        MetadataImage one =
                MetadataImage.EMPTY.apply(new AlterClientQuotas(List.of(set(ALICE, QuotaKey.PRODUCER_BYTE_RATE, 1))));

        assertThatThrownBy(() -> validator.validate(
                        one, new AlterClientQuotas(List.of(set(DEFAULT_USER, QuotaKey.PRODUCER_BYTE_RATE, 1)))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("the limit is 1");
        validator.validate(one, new AlterClientQuotas(List.of(set(ALICE, QuotaKey.CONSUMER_BYTE_RATE, 1))));
        validator.validate(one, new AlterClientQuotas(List.of(remove(ALICE, QuotaKey.PRODUCER_BYTE_RATE))));
    }

    static List<QuotaChange> randomChanges(RandomGenerator r, int max) {
        List<QuotaChange> changes = new ArrayList<>();
        int n = r.nextInt(1, max + 1);
        for (int i = 0; i < n; i++) {
            QuotaEntity entity;
            QuotaKey key;
            if (r.nextInt(5) == 0) {
                entity = new QuotaEntity(Map.of(
                        QuotaEntityType.IP,
                        r.nextBoolean() ? Optional.empty() : Optional.of("10.0.0." + r.nextInt(4))));
                key = QuotaKey.CONNECTION_CREATION_RATE;
            } else {
                Optional<String> user = r.nextBoolean() ? Optional.empty() : Optional.of("u" + r.nextInt(4));
                Optional<String> client = r.nextBoolean() ? Optional.empty() : Optional.of("c" + r.nextInt(4));
                entity = switch (r.nextInt(3)) {
                    case 0 -> QuotaEntity.user(user);
                    case 1 -> QuotaEntity.clientId(client);
                    default -> QuotaEntity.userAndClientId(user, client);
                };
                key = QuotaKey.values()[r.nextInt(4)];
            }
            changes.add(
                    set(entity, key, r.nextInt(1, 1_000_000) / (key.type() == QuotaKey.ValueType.DOUBLE ? 7.0 : 1.0)));
        }
        return changes;
    }
}
