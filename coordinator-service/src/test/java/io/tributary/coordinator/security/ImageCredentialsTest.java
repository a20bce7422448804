package io.tributary.coordinator.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.MetadataCommand.AlterScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import io.tributary.coordinator.metadata.MetadataImage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The coordinators' Kafka listener knows only the internal users of the image's credentials. */
class ImageCredentialsTest {

    private static final ScramCredentialData CREDENTIAL =
            ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, "secret", new byte[] {7}, 4096);

    private final MetadataImage image = MetadataImage.EMPTY.apply(new AlterScramCredentials(
            List.of(),
            List.of(
                    new ScramUpsertion("tributary-broker-0", ScramKeys.SCRAM_SHA_512, CREDENTIAL),
                    new ScramUpsertion("tributary-coordinator", ScramKeys.SCRAM_SHA_512, CREDENTIAL),
                    new ScramUpsertion("alice", ScramKeys.SCRAM_SHA_512, CREDENTIAL))));
    private final ImageCredentials credentials = new ImageCredentials(image::scramCredentials);

    @Test
    void theBrokersAndTheCoordinatorsAreKnownForTheirMechanism() {
        assertThat(credentials.scram("SCRAM-SHA-512", "tributary-broker-0")).contains(CREDENTIAL);
        assertThat(credentials.scram("SCRAM-SHA-512", "tributary-coordinator")).contains(CREDENTIAL);
        assertThat(credentials.scram("SCRAM-SHA-256", "tributary-broker-0")).isEmpty();
        assertThat(credentials.scram("SCRAM-SHA-512", "tributary-broker-1")).isEmpty();
    }

    @Test
    void aClientsUserIsUnknownEvenWithACredentialInTheStore() {
        assertThat(credentials.scram("SCRAM-SHA-512", "alice")).isEmpty();
        assertThat(credentials.checkPlain("alice", "secret".toCharArray())).isFalse();
    }
}
