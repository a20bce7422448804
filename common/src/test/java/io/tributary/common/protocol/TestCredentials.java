package io.tributary.common.protocol;

import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.ScramCredentialData;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/** Test users: alice has SCRAM-SHA-256 and SCRAM-SHA-512 credentials and a PLAIN password. */
final class TestCredentials implements CredentialLookup {

    static final String ALICE_PASSWORD = "alice-secret";

    private final Map<String, ScramCredentialData> scram = Map.of(
            "SCRAM-SHA-256", credential(ScramMechanism.SCRAM_SHA_256),
            "SCRAM-SHA-512", credential(ScramMechanism.SCRAM_SHA_512));

    private static ScramCredentialData credential(ScramMechanism mechanism) {
        try {
            ScramCredential c = new ScramFormatter(mechanism).generateCredential(ALICE_PASSWORD, 4096);
            return new ScramCredentialData(c.salt(), c.storedKey(), c.serverKey(), c.iterations());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Optional<ScramCredentialData> scram(String mechanism, String user) {
        return user.equals("alice") ? Optional.ofNullable(scram.get(mechanism)) : Optional.empty();
    }

    @Override
    public boolean checkPlain(String user, char[] password) {
        return user.equals("alice")
                && MessageDigest.isEqual(
                        new String(password).getBytes(StandardCharsets.UTF_8),
                        ALICE_PASSWORD.getBytes(StandardCharsets.UTF_8));
    }
}
