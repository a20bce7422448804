package io.tributary.coordinator.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.MetadataCommand.AlterScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.BootstrapScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.ScramDeletion;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** SCRAM credentials in the metadata image: the commands' rules, their bytes and the image's. */
class ScramCredentialsTest {

    private static ScramCredentialData credential(String password, int iterations) {
        return ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_256, password, new byte[] {1, 2, 3}, iterations);
    }

    private static ScramUpsertion upsert(String user, int mechanism, String password) {
        return new ScramUpsertion(user, mechanism, credential(password, 4096));
    }

    private static AlterScramCredentials alter(List<ScramDeletion> deletions, List<ScramUpsertion> upsertions) {
        return new AlterScramCredentials(deletions, upsertions);
    }

    @Test
    void storingACredentialBumpsTheVersionAndTheSameCommandAgainChangesNothing() {
        MetadataImage image = Fixtures.liveBrokers(1, 1);
        AlterScramCredentials command = alter(List.of(), List.of(upsert("alice", 1, "a"), upsert("alice", 2, "a")));

        MetadataImage next = image.apply(command);

        assertThat(next.version()).isEqualTo(image.version() + 1);
        assertThat(next.scramCredentials().get("alice", 1)).contains(credential("a", 4096));
        assertThat(next.scramCredentials().userCount()).isEqualTo(1);
        assertThat(next.apply(command)).isSameAs(next);
    }

    @Test
    void aDeletionRemovesOneMechanismAndTheLastOneTheUserAndAMissingOneIsIgnored() {
        MetadataImage image = MetadataImage.EMPTY.apply(
                alter(List.of(), List.of(upsert("alice", 1, "a"), upsert("alice", 2, "a"), upsert("bob", 1, "b"))));

        MetadataImage once = image.apply(alter(List.of(new ScramDeletion("alice", 1)), List.of()));
        assertThat(once.scramCredentials().get("alice", 1)).isEmpty();
        assertThat(once.scramCredentials().get("alice", 2)).isPresent();
        assertThat(once.version()).isEqualTo(image.version() + 1);

        MetadataImage twice = once.apply(alter(List.of(new ScramDeletion("alice", 2)), List.of()));
        assertThat(twice.scramCredentials().asMap()).containsOnlyKeys("bob");

        assertThat(twice.apply(alter(List.of(new ScramDeletion("alice", 2)), List.of())))
                .isSameAs(twice);
    }

    @Test
    void anUpsertionReplacesTheStoredCredential() {
        MetadataImage image = MetadataImage.EMPTY.apply(alter(List.of(), List.of(upsert("alice", 1, "a"))));
        ScramUpsertion other = new ScramUpsertion("alice", 1, credential("b", 8192));

        MetadataImage next = image.apply(alter(List.of(), List.of(other)));

        assertThat(next.scramCredentials().get("alice", 1)).contains(credential("b", 8192));
    }

    @Test
    void anEmptyUserAnUnknownMechanismOrACredentialWithoutKeysIsRefused() {
        ScramCredentialData noKeys = new ScramCredentialData(new byte[] {1}, new byte[0], new byte[0], 4096);
        for (AlterScramCredentials bad : List.of(
                alter(List.of(), List.of(upsert("", 1, "a"))),
                alter(List.of(), List.of(upsert("alice", 3, "a"))),
                alter(List.of(new ScramDeletion("alice", 0)), List.of()),
                alter(List.of(), List.of(new ScramUpsertion("alice", 1, noKeys))))) {
            assertThatThrownBy(() -> MetadataImage.EMPTY.apply(bad))
                    .as(bad.toString())
                    .isInstanceOf(InvalidRequestException.class);
        }
    }

    @Test
    void otherCommandsKeepTheCredentials() {
        MetadataImage image = Fixtures.liveBrokers(1, 1).apply(alter(List.of(), List.of(upsert("alice", 1, "a"))));

        MetadataImage next = image.apply(Fixtures.createTopic("t", List.of(List.of(0))))
                .apply(new MetadataCommand.DeleteTopic("t"))
                .apply(new MetadataCommand.AllocateProducerIds(0, 10));

        assertThat(next.scramCredentials()).isEqualTo(image.scramCredentials());
    }

    @Test
    void theBootstrapIsAppliedOnceInTheClustersLife() {
        MetadataImage first =
                MetadataImage.EMPTY.apply(new BootstrapScramCredentials(List.of(upsert("admin", 2, "secret"))));
        assertThat(first.scramCredentials().bootstrapped()).isTrue();
        assertThat(first.scramCredentials().get("admin", 2)).isPresent();
        assertThat(first.version()).isEqualTo(1);

        MetadataImage deleted = first.apply(alter(List.of(new ScramDeletion("admin", 2)), List.of()));
        MetadataImage again = deleted.apply(
                new BootstrapScramCredentials(List.of(upsert("admin", 2, "secret"), upsert("x", 1, "y"))));

        assertThat(again).isSameAs(deleted);
        assertThat(again.scramCredentials().userCount()).isZero();
    }

    @Test
    void aBootstrapWithoutUsersOnlyMarksTheImageAtTheSameVersion() {
        MetadataImage image = Fixtures.liveBrokers(1, 1);

        MetadataImage marked = image.apply(new BootstrapScramCredentials(List.of()));

        assertThat(marked.version()).isEqualTo(image.version());
        assertThat(marked.scramCredentials().bootstrapped()).isTrue();
        assertThat(marked.apply(new BootstrapScramCredentials(List.of(upsert("admin", 2, "s")))))
                .isSameAs(marked);
    }

    // ---- bytes

    @Test
    void aDeletionCommandHasTheDocumentedBytes() {
        byte[] bytes = CommandCodec.encode(alter(List.of(new ScramDeletion("u", 1)), List.of()));

        assertThat(HexFormat.ofDelimiter(" ").withUpperCase().formatHex(bytes))
                .isEqualTo("07 12 00 00 00 01 00 00 00 01 75 01 00 00 00 00");
    }

    @Test
    void aBootstrapCommandHasTheDocumentedBytes() {
        var c = new ScramCredentialData(new byte[] {(byte) 0xAB}, new byte[] {1}, new byte[] {2}, 4096);
        byte[] bytes = CommandCodec.encode(new BootstrapScramCredentials(List.of(new ScramUpsertion("a", 2, c))));

        assertThat(HexFormat.ofDelimiter(" ").withUpperCase().formatHex(bytes))
                .isEqualTo(
                        "07 13 00 00 00 01 00 00 00 01 61 02 00 00 00 01 AB 00 00 00 01 01 00 00 00 01 02 00 00 10 00");
    }

    static List<Long> seeds() {
        return java.util.stream.LongStream.range(0, 100).boxed().toList();
    }

    private static byte[] randomBytes(RandomGenerator r, int max) {
        byte[] b = new byte[r.nextInt(max + 1)];
        r.nextBytes(b);
        return b;
    }

    private static ScramCredentialData randomCredential(RandomGenerator r) {
        return new ScramCredentialData(randomBytes(r, 40), nonEmpty(r), nonEmpty(r), r.nextInt(1, Integer.MAX_VALUE));
    }

    private static byte[] nonEmpty(RandomGenerator r) {
        byte[] b = randomBytes(r, 63);
        return b.length == 0 ? new byte[] {(byte) r.nextInt()} : b;
    }

    private static String randomUser(RandomGenerator r) {
        return r.nextBoolean() ? "user-" + r.nextInt(20) : "é-" + r.nextInt(5);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void commandsRoundTripAndRejectEveryTruncationAndTrailingByte(long seed) {
        RandomGenerator r = new Random(seed);
        List<ScramDeletion> deletions = java.util.stream.IntStream.range(0, r.nextInt(4))
                .mapToObj(i -> new ScramDeletion(randomUser(r), r.nextInt(0, 4)))
                .toList();
        List<ScramUpsertion> upsertions = java.util.stream.IntStream.range(0, r.nextInt(4))
                .mapToObj(i -> new ScramUpsertion(randomUser(r), r.nextInt(0, 4), randomCredential(r)))
                .toList();
        for (MetadataCommand command :
                List.of(new AlterScramCredentials(deletions, upsertions), new BootstrapScramCredentials(upsertions))) {
            byte[] bytes = CommandCodec.encode(command);
            assertThat(CommandCodec.decode(bytes)).as("seed " + seed).isEqualTo(command);
            for (int cut = 0; cut < bytes.length; cut++) {
                byte[] truncated = Arrays.copyOf(bytes, cut);
                assertThatThrownBy(() -> CommandCodec.decode(truncated))
                        .as("seed %d cut at %d", seed, cut)
                        .isInstanceOf(CorruptCommandException.class);
            }
            byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
            assertThatThrownBy(() -> CommandCodec.decode(longer)).isInstanceOf(CorruptCommandException.class);
        }
    }

    @Test
    void theScramTypesNeedVersion7() {
        byte[] bytes = CommandCodec.encode(alter(List.of(new ScramDeletion("u", 1)), List.of()));
        bytes[0] = 6;
        byte[] v6 = bytes;

        assertThatThrownBy(() -> CommandCodec.decode(v6))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("needs format version 7");
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void imagesWithCredentialsRoundTripCanonically(long seed) {
        RandomGenerator r = new Random(seed);
        SortedMap<String, SortedMap<Integer, ScramCredentialData>> users = new TreeMap<>();
        for (int i = r.nextInt(6); i > 0; i--) {
            SortedMap<Integer, ScramCredentialData> byMechanism = new TreeMap<>();
            byMechanism.put(1 + r.nextInt(2), randomCredential(r));
            if (r.nextBoolean()) {
                byMechanism.put(1 + r.nextInt(2), randomCredential(r));
            }
            users.put(randomUser(r), byMechanism);
        }
        MetadataImage image = withScram(Fixtures.liveBrokers(2, 1), ScramCredentials.of(users, r.nextBoolean()));

        byte[] bytes = ImageCodec.encode(image);
        MetadataImage decoded = ImageCodec.decode(bytes);

        assertThat(decoded).as("seed " + seed).isEqualTo(image);
        assertThat(ImageCodec.encode(decoded)).isEqualTo(bytes);
    }

    @Test
    void aVersion6ImageLoadsWithoutCredentialsAndNotBootstrapped() {
        MetadataImage image = Fixtures.liveBrokers(2, 1);
        byte[] v6 = CodecTest.asVersionSix(ImageCodec.encode(image));

        MetadataImage decoded = ImageCodec.decode(v6);

        assertThat(decoded).isEqualTo(image);
        assertThat(decoded.scramCredentials().bootstrapped()).isFalse();
    }

    @Test
    void anImageWithUsersOutOfOrderIsCorrupt() {
        SortedMap<String, SortedMap<Integer, ScramCredentialData>> users = new TreeMap<>();
        users.put("a", new TreeMap<>(java.util.Map.of(1, credential("x", 4096))));
        users.put("b", new TreeMap<>(java.util.Map.of(1, credential("x", 4096))));
        byte[] bytes = ImageCodec.encode(withScram(MetadataImage.EMPTY, ScramCredentials.of(users, true)));
        // swap the one-byte user names "a" and "b" (the image has no other string)
        int a = indexOf(bytes, new byte[] {0, 0, 0, 1, 0x61}) + 4;
        int b = indexOf(bytes, new byte[] {0, 0, 0, 1, 0x62}) + 4;
        bytes[a] = 0x62;
        bytes[b] = 0x61;
        byte[] body = Arrays.copyOf(bytes, bytes.length - 4);
        CRC32C crc = new CRC32C();
        crc.update(body);
        byte[] swapped = ByteBuffer.allocate(bytes.length)
                .put(body)
                .putInt((int) crc.getValue())
                .array();

        assertThatThrownBy(() -> ImageCodec.decode(swapped))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("out of order");
    }

    /** Where {@code pattern} first starts in {@code bytes}. */
    static int indexOf(byte[] bytes, byte[] pattern) {
        for (int i = 0; i + pattern.length <= bytes.length; i++) {
            if (Arrays.equals(bytes, i, i + pattern.length, pattern, 0, pattern.length)) {
                return i;
            }
        }
        throw new AssertionError("pattern not found");
    }

    private static MetadataImage withScram(MetadataImage image, ScramCredentials scram) {
        return new MetadataImage(
                image.version(),
                image.brokers(),
                image.topics(),
                image.nextProducerId(),
                image.committedOffsets(),
                image.classicGroups(),
                image.consumerGroups(),
                scram);
    }

    @Test
    void theValidatorRefusesANewUserPastTheBound() {
        MetadataLimits limits = new MetadataLimits(1 << 20, 10, 100, 2, 3, 4, 2, 2, 2);
        CommandValidator validator = new CommandValidator(limits);
        MetadataImage two =
                MetadataImage.EMPTY.apply(alter(List.of(), List.of(upsert("a", 1, "x"), upsert("b", 1, "x"))));

        assertThatThrownBy(() -> validator.validate(two, alter(List.of(), List.of(upsert("c", 1, "x")))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("the limit is 2");
        assertThat(validator
                        .validate(two, alter(List.of(), List.of(upsert("a", 2, "x"))))
                        .scramCredentials()
                        .userCount())
                .isEqualTo(2);
        MetadataImage one = validator.validate(two, alter(List.of(new ScramDeletion("b", 1)), List.of()));
        assertThat(validator
                        .validate(one, alter(List.of(), List.of(upsert("c", 1, "x"))))
                        .scramCredentials()
                        .userCount())
                .isEqualTo(2);
    }

    @Test
    void tributarysOwnLoginsDoNotCountTowardTheBound() {
        MetadataLimits limits = new MetadataLimits(1 << 20, 10, 100, 2, 3, 4, 2, 2, 2);
        CommandValidator validator = new CommandValidator(limits);
        MetadataImage internal = MetadataImage.EMPTY.apply(alter(
                List.of(),
                List.of(
                        upsert("tributary-coordinator", 2, "x"),
                        upsert("tributary-broker-0", 2, "x"),
                        upsert("tributary-broker-1", 2, "x"))));

        MetadataImage two =
                validator.validate(internal, alter(List.of(), List.of(upsert("a", 1, "x"), upsert("b", 1, "x"))));

        assertThat(two.scramCredentials().userCount()).isEqualTo(5);
        assertThat(two.scramCredentials().clientUserCount()).isEqualTo(2);
        assertThat(validator
                        .validate(two, alter(List.of(), List.of(upsert("tributary-broker-2", 2, "x"))))
                        .scramCredentials()
                        .clientUserCount())
                .isEqualTo(2);
        // A name that only looks internal is a client's user.
        assertThatThrownBy(() ->
                        validator.validate(two, alter(List.of(), List.of(upsert("tributary-broker-x", 1, "x")))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("the limit is 2");
    }
}
