package io.tributary.common.security.sasl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ScramKeysTest {

    private static final byte[] SALT = "some-salt".getBytes(StandardCharsets.UTF_8);

    @ParameterizedTest
    @ValueSource(ints = {ScramKeys.SCRAM_SHA_256, ScramKeys.SCRAM_SHA_512})
    void aPasswordGivesTheCredentialKafkaClientsGenerate(int code) throws Exception {
        ScramMechanism mechanism =
                ScramMechanism.forMechanismName(ScramKeys.name(code).orElseThrow());
        ScramFormatter formatter = new ScramFormatter(mechanism);
        ScramCredential kafka =
                formatter.generateCredential(SALT, formatter.hi(ScramFormatter.normalize("pencil"), SALT, 4096), 4096);

        ScramCredentialData ours = ScramKeys.fromPassword(code, "pencil", SALT, 4096);

        assertThat(ours).isEqualTo(new ScramCredentialData(kafka.salt(), kafka.storedKey(), kafka.serverKey(), 4096));
    }

    @ParameterizedTest
    @ValueSource(ints = {ScramKeys.SCRAM_SHA_256, ScramKeys.SCRAM_SHA_512})
    void aSaltedPasswordGivesTheSameCredentialAsItsPassword(int code) throws Exception {
        ScramMechanism mechanism =
                ScramMechanism.forMechanismName(ScramKeys.name(code).orElseThrow());
        byte[] salted = new ScramFormatter(mechanism).saltedPassword("pencil", SALT, 8192);

        assertThat(ScramKeys.fromSaltedPassword(code, SALT, salted, 8192))
                .isEqualTo(ScramKeys.fromPassword(code, "pencil", SALT, 8192));
    }

    @ParameterizedTest
    @ValueSource(ints = {ScramKeys.SCRAM_SHA_256, ScramKeys.SCRAM_SHA_512})
    void matchesOnlyTheRightPassword(int code) {
        ScramCredentialData credential = ScramKeys.fromPassword(code, "pencil", SALT, 4096);

        assertThat(ScramKeys.matches(code, credential, "pencil".toCharArray())).isTrue();
        assertThat(ScramKeys.matches(code, credential, "pencil2".toCharArray())).isFalse();
        assertThat(ScramKeys.matches(code, credential, new char[0])).isFalse();
        int other = code == ScramKeys.SCRAM_SHA_256 ? ScramKeys.SCRAM_SHA_512 : ScramKeys.SCRAM_SHA_256;
        assertThat(ScramKeys.matches(other, credential, "pencil".toCharArray())).isFalse();
    }

    @Test
    void namesAndCodesAreKafkas() {
        assertThat(ScramKeys.name(1)).contains("SCRAM-SHA-256");
        assertThat(ScramKeys.name(2)).contains("SCRAM-SHA-512");
        assertThat(ScramKeys.name(0)).isEmpty();
        assertThat(ScramKeys.name(3)).isEmpty();
        assertThat(ScramKeys.code("SCRAM-SHA-512")).contains(2);
        assertThat(ScramKeys.code("PLAIN")).isEmpty();
        for (var m : org.apache.kafka.clients.admin.ScramMechanism.values()) {
            if (m != org.apache.kafka.clients.admin.ScramMechanism.UNKNOWN) {
                assertThat(ScramKeys.name(m.type())).contains(m.mechanismName());
            }
        }
    }

    @Test
    void refusesUnknownMechanismsAndEmptySecrets() {
        assertThatThrownBy(() -> ScramKeys.fromPassword(0, "p", SALT, 4096))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScramKeys.fromPassword(1, "", SALT, 4096))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScramKeys.fromSaltedPassword(1, SALT, new byte[0], 4096))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
