package io.tributary.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataDelta;
import io.tributary.broker.cluster.ScramUsers;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClusterCredentialsTest {

    private static final byte[] SALT = {9, 8, 7};
    private static final ScramCredentialData ALICE_512 =
            ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_512, "alice-pw", SALT, 4096);
    private static final ScramCredentialData ALICE_256 =
            ScramKeys.fromPassword(ScramKeys.SCRAM_SHA_256, "alice-pw", SALT, 4096);

    private static ClusterImage image(long version, Map<String, Map<Integer, ScramCredentialData>> users) {
        return new ClusterImage(version, Map.of(), Map.of(), new ScramUsers(users));
    }

    @Test
    void lookupsAnswerTheNewestImagesCredentials() {
        ClusterCredentials credentials = new ClusterCredentials();
        assertThat(credentials.scram("SCRAM-SHA-512", "alice")).isEmpty();

        credentials.onImage(ClusterImage.EMPTY, image(1, Map.of("alice", Map.of(2, ALICE_512, 1, ALICE_256))));

        assertThat(credentials.scram("SCRAM-SHA-512", "alice")).contains(ALICE_512);
        assertThat(credentials.scram("SCRAM-SHA-256", "alice")).contains(ALICE_256);
        assertThat(credentials.scram("PLAIN", "alice")).isEmpty();
        assertThat(credentials.scram("SCRAM-SHA-512", "bob")).isEmpty();

        credentials.onImage(image(1, Map.of()), image(2, Map.of("alice", Map.of(1, ALICE_256))));

        assertThat(credentials.scram("SCRAM-SHA-512", "alice")).isEmpty();
        assertThat(credentials.scram("SCRAM-SHA-256", "alice")).contains(ALICE_256);
        assertThat(credentials.userCount()).isEqualTo(1);
    }

    @Test
    void plainPasswordsAreCheckedAgainstTheScramCredentials() {
        ClusterCredentials credentials = new ClusterCredentials();
        credentials.onImage(ClusterImage.EMPTY, image(1, Map.of("alice", Map.of(2, ALICE_512))));

        assertThat(credentials.checkPlain("alice", "alice-pw".toCharArray())).isTrue();
        assertThat(credentials.checkPlain("alice", "wrong".toCharArray())).isFalse();
        assertThat(credentials.checkPlain("bob", "alice-pw".toCharArray())).isFalse();
    }

    @Test
    void theImageKeepsItsCredentialsThroughDeltasWithoutThemAndAFullDeltaReplacesThem() {
        ClusterImage withAlice = ClusterImage.EMPTY.apply(new MetadataDelta(
                1,
                true,
                List.of(),
                List.of(),
                List.of(),
                Optional.of(new ScramUsers(Map.of("alice", Map.of(2, ALICE_512))))));

        ClusterImage topicsOnly = withAlice.apply(new MetadataDelta(2, false, List.of(), List.of(), List.of()));
        ClusterImage fullWithout = topicsOnly.apply(new MetadataDelta(3, true, List.of(), List.of(), List.of()));

        assertThat(topicsOnly.scramCredentials()).isEqualTo(withAlice.scramCredentials());
        assertThat(fullWithout.scramCredentials()).isEqualTo(ScramUsers.EMPTY);
    }
}
