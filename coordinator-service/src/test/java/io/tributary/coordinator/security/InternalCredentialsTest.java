package io.tributary.coordinator.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.common.security.internal.ClusterSecret;
import io.tributary.common.security.internal.ControlPlaneSignature.Caller;
import io.tributary.common.security.internal.ControlPlaneSignature.SecretGeneration;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.MetadataCommand.AlterScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.ScramCredentials;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The coordinators keep one SCRAM-SHA-512 credential per registered broker and one for themselves,
 * each made from the password the cluster secret derives, written again when the secret changed.
 */
class InternalCredentialsTest {

    private static final ClusterSecret SECRET = ClusterSecret.of("0123456789abcdef0123456789abcdef-coord");
    private static final ClusterSecret ROTATED = ClusterSecret.of("a rotated cluster secret, 32 bytes or more");

    private final AtomicInteger salts = new AtomicInteger();

    private InternalCredentials credentials(ClusterSecret secret) {
        return new InternalCredentials(
                secret, ScramKeys.MIN_ITERATIONS, () -> new byte[] {(byte) salts.incrementAndGet(), 1, 2, 3});
    }

    private static MetadataImage apply(MetadataImage image, Optional<AlterScramCredentials> command) {
        return image.apply(command.orElseThrow());
    }

    private static boolean logsIn(ScramCredentials stored, String user, String password) {
        return stored.get(user, ScramKeys.SCRAM_SHA_512)
                .map(c -> ScramKeys.matches(ScramKeys.SCRAM_SHA_512, c, password.toCharArray()))
                .orElse(false);
    }

    @Test
    void theCoordinatorsAndEachBrokerGetACredentialOfTheirDerivedPassword() {
        InternalCredentials internal = credentials(SECRET);

        Optional<AlterScramCredentials> command = internal.missing(ScramCredentials.EMPTY, List.of(2, 0));

        assertThat(command.orElseThrow().deletions()).isEmpty();
        assertThat(command.get().upsertions())
                .extracting(ScramUpsertion::user, ScramUpsertion::mechanism)
                .containsExactly(
                        tuple("tributary-coordinator", ScramKeys.SCRAM_SHA_512),
                        tuple("tributary-broker-0", ScramKeys.SCRAM_SHA_512),
                        tuple("tributary-broker-2", ScramKeys.SCRAM_SHA_512));
        assertThat(command.get().upsertions())
                .extracting(u -> u.credential().iterations())
                .containsOnly(ScramKeys.MIN_ITERATIONS);
        ScramCredentials stored = apply(MetadataImage.EMPTY, command).scramCredentials();
        assertThat(logsIn(
                        stored,
                        "tributary-broker-2",
                        SECRET.brokerKey(2).kafkaLogin().password()))
                .isTrue();
        assertThat(logsIn(
                        stored,
                        "tributary-coordinator",
                        SECRET.coordinatorLogin().password()))
                .isTrue();
        assertThat(logsIn(
                        stored,
                        "tributary-broker-2",
                        SECRET.brokerKey(0).kafkaLogin().password()))
                .isFalse();
    }

    @Test
    void nothingIsWrittenWhileEveryCredentialIsInPlaceAndANewBrokerGetsOnlyItsOwn() {
        InternalCredentials internal = credentials(SECRET);
        MetadataImage image = apply(MetadataImage.EMPTY, internal.missing(ScramCredentials.EMPTY, List.of(0)));

        assertThat(internal.missing(image.scramCredentials(), List.of(0))).isEmpty();
        // another coordinator (a new leader) with the same secret finds them in place too
        assertThat(credentials(SECRET).missing(image.scramCredentials(), List.of(0)))
                .isEmpty();
        assertThat(internal.missing(image.scramCredentials(), List.of(0, 1))
                        .orElseThrow()
                        .upsertions())
                .extracting(ScramUpsertion::user)
                .containsExactly("tributary-broker-1");
    }

    @Test
    void aChangedSecretRewritesEveryCredential() {
        MetadataImage image =
                apply(MetadataImage.EMPTY, credentials(SECRET).missing(ScramCredentials.EMPTY, List.of(0, 1)));
        InternalCredentials rotated = credentials(ROTATED);

        Optional<AlterScramCredentials> command = rotated.missing(image.scramCredentials(), List.of(0, 1));

        assertThat(command.orElseThrow().upsertions())
                .extracting(ScramUpsertion::user)
                .containsExactly("tributary-coordinator", "tributary-broker-0", "tributary-broker-1");
        ScramCredentials stored = apply(image, command).scramCredentials();
        assertThat(logsIn(
                        stored,
                        "tributary-broker-1",
                        ROTATED.brokerKey(1).kafkaLogin().password()))
                .isTrue();
        assertThat(logsIn(
                        stored,
                        "tributary-broker-1",
                        SECRET.brokerKey(1).kafkaLogin().password()))
                .isFalse();
        assertThat(rotated.missing(stored, List.of(0, 1))).isEmpty();
    }

    @Test
    void aCredentialChangedBehindItsBackIsCheckedAgain() {
        InternalCredentials internal = credentials(SECRET);
        MetadataImage image = apply(MetadataImage.EMPTY, internal.missing(ScramCredentials.EMPTY, List.of(0)));
        assertThat(internal.missing(image.scramCredentials(), List.of(0))).isEmpty();

        ScramCredentialData foreign =
                ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, "not derived", new byte[] {9}, 4096);
        image = image.apply(new AlterScramCredentials(
                List.of(), List.of(new ScramUpsertion("tributary-broker-0", ScramKeys.SCRAM_SHA_512, foreign))));

        assertThat(internal.missing(image.scramCredentials(), List.of(0))
                        .orElseThrow()
                        .upsertions())
                .extracting(ScramUpsertion::user)
                .containsExactly("tributary-broker-0");
    }

    private static boolean brokerLogsIn(ScramCredentials stored, int brokerId, ClusterSecret secret) {
        return logsIn(
                stored,
                "tributary-broker-" + brokerId,
                secret.brokerKey(brokerId).kafkaLogin().password());
    }

    private InternalCredentials rotating(BrokerSigningSecrets signers) {
        return new InternalCredentials(ROTATED, Optional.of(SECRET), signers, ScramKeys.MIN_ITERATIONS, () ->
                new byte[] {(byte) salts.incrementAndGet(), 1, 2, 3});
    }

    private static Caller signed(int brokerId, SecretGeneration secret) {
        return new Caller(brokerId, secret);
    }

    @Test
    void duringARotationABrokerKeepsTheCredentialOfTheSecretItSignsWithUntilItSignsWithTheNewOne() {
        MetadataImage image =
                apply(MetadataImage.EMPTY, credentials(SECRET).missing(ScramCredentials.EMPTY, List.of(0, 1, 2)));
        BrokerSigningSecrets signers = new BrokerSigningSecrets();
        signers.signed(signed(0, SecretGeneration.PREVIOUS));
        signers.signed(signed(1, SecretGeneration.CURRENT));
        InternalCredentials rotating = rotating(signers);

        // broker 0 still signs with the old secret: kept; broker 1 restarted with the new one:
        // rewritten; broker 2 not seen yet: kept; the coordinators' own: the new secret's
        Optional<AlterScramCredentials> command = rotating.missing(image.scramCredentials(), List.of(0, 1, 2));

        assertThat(command.orElseThrow().upsertions())
                .extracting(ScramUpsertion::user)
                .containsExactly("tributary-coordinator", "tributary-broker-1");
        image = apply(image, command);
        ScramCredentials stored = image.scramCredentials();
        assertThat(brokerLogsIn(stored, 0, SECRET)).isTrue();
        assertThat(brokerLogsIn(stored, 1, ROTATED)).isTrue();
        assertThat(brokerLogsIn(stored, 2, SECRET)).isTrue();
        assertThat(logsIn(
                        stored,
                        "tributary-coordinator",
                        ROTATED.coordinatorLogin().password()))
                .isTrue();
        assertThat(rotating.missing(stored, List.of(0, 1, 2))).isEmpty();

        // broker 0 restarts with the new secret and signs with it
        signers.signed(signed(0, SecretGeneration.CURRENT));
        command = rotating.missing(stored, List.of(0, 1, 2));

        assertThat(command.orElseThrow().upsertions())
                .extracting(ScramUpsertion::user)
                .containsExactly("tributary-broker-0");
        stored = apply(image, command).scramCredentials();
        assertThat(brokerLogsIn(stored, 0, ROTATED)).isTrue();
        assertThat(brokerLogsIn(stored, 0, SECRET)).isFalse();
    }

    @Test
    void duringARotationABrokerSigningWithTheOldSecretGetsItsOldCredentialBackAndAnUnseenOneKeepsEither() {
        // a leader without the previous secret (not yet restarted) wrote the new secret's credentials
        MetadataImage image =
                apply(MetadataImage.EMPTY, credentials(ROTATED).missing(ScramCredentials.EMPTY, List.of(0, 1)));
        BrokerSigningSecrets signers = new BrokerSigningSecrets();
        signers.signed(signed(0, SecretGeneration.PREVIOUS));

        Optional<AlterScramCredentials> command = rotating(signers).missing(image.scramCredentials(), List.of(0, 1));

        assertThat(command.orElseThrow().upsertions())
                .extracting(ScramUpsertion::user)
                .containsExactly("tributary-broker-0");
        ScramCredentials stored = apply(image, command).scramCredentials();
        assertThat(brokerLogsIn(stored, 0, SECRET)).isTrue();
        assertThat(brokerLogsIn(stored, 1, ROTATED)).isTrue();
        // an unseen broker whose credential matches neither secret gets the new secret's
        ScramCredentialData foreign =
                ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, "not derived", new byte[] {9}, 4096);
        MetadataImage tampered = image.apply(new AlterScramCredentials(
                List.of(), List.of(new ScramUpsertion("tributary-broker-1", ScramKeys.SCRAM_SHA_512, foreign))));
        ScramCredentials rewritten = apply(
                        tampered, rotating(new BrokerSigningSecrets()).missing(tampered.scramCredentials(), List.of(1)))
                .scramCredentials();
        assertThat(brokerLogsIn(rewritten, 1, ROTATED)).isTrue();
    }
}
