package io.tributary.coordinator.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.coordinator.metadata.MetadataCommand.CreateAcls;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteAcls;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** ACLs in the metadata image: the commands' rules, their bytes and the image's ACL section. */
class AclSetTest {

    static LongStream seeds() {
        return LongStream.range(0, 100);
    }

    private static AclBinding allow(String topic, String principal, AclOperation operation) {
        return new AclBinding(
                AclResourceType.TOPIC, topic, AclPatternType.LITERAL, principal, "*", operation, AclPermission.ALLOW);
    }

    private static final AclBinding READ_T = allow("t", "User:u", AclOperation.READ);
    private static final AclBinding WRITE_T = allow("t", "User:u", AclOperation.WRITE);

    @Test
    void creatingAnAclBumpsTheVersionAndTheSameCommandAgainChangesNothing() {
        MetadataImage image = Fixtures.liveBrokers(1, 1);
        CreateAcls command = new CreateAcls(List.of(READ_T, WRITE_T, READ_T));

        MetadataImage next = image.apply(command);

        assertThat(next.version()).isEqualTo(image.version() + 1);
        assertThat(next.acls().asSet()).containsExactly(READ_T, WRITE_T);
        assertThat(next.apply(command)).isSameAs(next);
    }

    @Test
    void aDeletionRemovesStoredAclsIgnoresMissingOnesAndOnlyMissingOnesChangeNothing() {
        MetadataImage image = MetadataImage.EMPTY.apply(new CreateAcls(List.of(READ_T, WRITE_T)));
        AclBinding missing = allow("other", "User:u", AclOperation.READ);

        MetadataImage next = image.apply(new DeleteAcls(List.of(READ_T, missing)));

        assertThat(next.version()).isEqualTo(image.version() + 1);
        assertThat(next.acls().asSet()).containsExactly(WRITE_T);
        assertThat(next.apply(new DeleteAcls(List.of(READ_T, missing)))).isSameAs(next);
    }

    @Test
    void anInvalidAclIsRefusedAndChangesNothing() {
        AclBinding noColon = allow("t", "alice", AclOperation.READ);
        AclBinding any = new AclBinding(
                AclResourceType.ANY,
                "t",
                AclPatternType.LITERAL,
                "User:u",
                "*",
                AclOperation.READ,
                AclPermission.ALLOW);
        AclBinding emptyHost = new AclBinding(
                AclResourceType.TOPIC,
                "t",
                AclPatternType.LITERAL,
                "User:u",
                "",
                AclOperation.READ,
                AclPermission.ALLOW);

        for (AclBinding bad : List.of(noColon, any, emptyHost)) {
            assertThatThrownBy(() -> MetadataImage.EMPTY.apply(new CreateAcls(List.of(READ_T, bad))))
                    .as(bad.toString())
                    .isInstanceOf(InvalidRequestException.class);
        }
    }

    @Test
    void otherCommandsKeepTheAcls() {
        MetadataImage image = Fixtures.liveBrokers(1, 1).apply(new CreateAcls(List.of(READ_T)));

        MetadataImage next = image.apply(Fixtures.createTopic("t", List.of(List.of(0))));

        assertThat(next.acls()).isSameAs(image.acls());
    }

    @Test
    void aCreateAclsCommandHasTheDocumentedBytes() {
        HexFormat hex = HexFormat.ofDelimiter(" ").withUpperCase();
        String documented = "08 14 00 00 00 01 02 00 00 00 01 74 03 00 00 00 06 55 73 65 72 3A 75 00 00 00 01 2A 03 03";

        assertThat(hex.formatHex(CommandCodec.encode(new CreateAcls(List.of(READ_T)))))
                .isEqualTo(documented);
        assertThat(CommandCodec.decode(hex.parseHex(documented))).isEqualTo(new CreateAcls(List.of(READ_T)));
    }

    @Test
    void theAclTypesNeedVersion8AndUnknownCodesAreCorrupt() {
        byte[] bytes = CommandCodec.encode(new DeleteAcls(List.of(READ_T)));
        byte[] v7 = bytes.clone();
        v7[0] = 7;
        assertThatThrownBy(() -> CommandCodec.decode(v7))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("needs format version 8");
        byte[] badOperation = bytes.clone();
        badOperation[badOperation.length - 2] = 16;
        assertThatThrownBy(() -> CommandCodec.decode(badOperation))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("unknown ACL operation");
    }

    private static AclBinding randomAcl(RandomGenerator r) {
        AclResourceType[] types = {
            AclResourceType.TOPIC, AclResourceType.GROUP, AclResourceType.TRANSACTIONAL_ID, AclResourceType.USER
        };
        AclOperation[] operations = AclOperation.values();
        return new AclBinding(
                types[r.nextInt(types.length)],
                r.nextBoolean() ? "*" : "res-" + r.nextInt(5) + (r.nextBoolean() ? "é" : ""),
                r.nextBoolean() ? AclPatternType.LITERAL : AclPatternType.PREFIXED,
                r.nextBoolean() ? "User:*" : "User:u" + r.nextInt(4),
                r.nextBoolean() ? "*" : "10.0.0." + r.nextInt(3),
                operations[r.nextInt(2, operations.length)],
                r.nextBoolean() ? AclPermission.ALLOW : AclPermission.DENY);
    }

    private static List<AclBinding> randomAcls(RandomGenerator r, int max) {
        List<AclBinding> acls = new ArrayList<>();
        for (int i = r.nextInt(max); i > 0; i--) {
            acls.add(randomAcl(r));
        }
        return acls;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void commandsRoundTripAndRejectEveryTruncationAndTrailingByte(long seed) {
        RandomGenerator r = new Random(seed);
        List<AclBinding> acls = randomAcls(r, 4);

        CodecTest.assertRoundTripAndRejectedTruncations(new CreateAcls(acls), seed);
        CodecTest.assertRoundTripAndRejectedTruncations(new DeleteAcls(acls), seed);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void imagesWithAclsRoundTripCanonicallyAndAFlippedBitIsCaught(long seed) {
        RandomGenerator r = new Random(seed);
        MetadataImage image = Fixtures.liveBrokers(2, 1).apply(new CreateAcls(randomAcls(r, 30)));
        if (image.acls().size() > 0 && r.nextBoolean()) {
            image = image.apply(new DeleteAcls(List.of(image.acls().asSet().first())));
        }

        CodecTest.assertImageRoundTripsCanonicallyAndAFlippedBitIsCaught(image, r, seed);
    }

    @Test
    void aVersion7ImageLoadsWithoutAcls() {
        MetadataImage image = Fixtures.liveBrokers(2, 1);

        MetadataImage decoded = ImageCodec.decode(CodecTest.asVersionSeven(ImageCodec.encode(image)));

        assertThat(decoded).isEqualTo(image);
        assertThat(decoded.acls().size()).isZero();
    }

    @Test
    void anImageWithAclsOutOfOrderIsCorrupt() {
        AclBinding a = allow("a", "User:u", AclOperation.READ);
        AclBinding b = allow("b", "User:u", AclOperation.READ);
        byte[] bytes = ImageCodec.encode(MetadataImage.EMPTY.apply(new CreateAcls(List.of(a, b))));
        // swap the one-byte resource names "a" and "b" (the image has no other one-byte string)
        int at = ScramCredentialsTest.indexOf(bytes, new byte[] {0, 0, 0, 1, 0x61}) + 4;
        int bt = ScramCredentialsTest.indexOf(bytes, new byte[] {0, 0, 0, 1, 0x62}) + 4;
        bytes[at] = 0x62;
        bytes[bt] = 0x61;
        byte[] swapped = CodecTest.withCrc(Arrays.copyOf(bytes, bytes.length - 4));

        assertThatThrownBy(() -> ImageCodec.decode(swapped))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("out of order");
    }

    @Test
    void theValidatorRefusesAclsPastTheBoundButNeverADeletion() {
        MetadataLimits limits = new MetadataLimits(1 << 20, 10, 100, 2, 3, 4, 2, 2, 2, 2);
        CommandValidator validator = new CommandValidator(limits);
        MetadataImage two = MetadataImage.EMPTY.apply(new CreateAcls(List.of(READ_T, WRITE_T)));
        AclBinding third = allow("t", "User:v", AclOperation.READ);

        assertThatThrownBy(() -> validator.validate(two, new CreateAcls(List.of(third))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("the limit is 2");
        assertThat(validator.validate(two, new CreateAcls(List.of(READ_T)))).isSameAs(two);
        MetadataImage three = two.apply(new CreateAcls(List.of(third)));
        CommandValidator lower = new CommandValidator(new MetadataLimits(1 << 20, 10, 100, 2, 3, 4, 2, 2, 2, 1));
        assertThat(lower.validate(three, new DeleteAcls(List.of(READ_T))).acls().size())
                .isEqualTo(2);
    }
}
