package io.tributary.coordinator.security;

import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.ScramCredentials;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The cluster's SCRAM credentials as this coordinator's Kafka listener reads them: those of the
 * voter's latest applied metadata image, read on every lookup. SCRAM only: no PLAIN passwords (the
 * coordinators' listener offers SCRAM-SHA-512 and SCRAM-SHA-256, for the brokers' internal logins).
 *
 * <p>Thread-safety: safe for concurrent use when {@code credentials} is (an image is immutable).
 */
public final class ImageCredentials implements CredentialLookup {

    private final Supplier<ScramCredentials> credentials;

    /** @param credentials the credentials of the latest image (the state machine's). */
    public ImageCredentials(Supplier<ScramCredentials> credentials) {
        this.credentials = Objects.requireNonNull(credentials, "credentials");
    }

    @Override
    public Optional<ScramCredentialData> scram(String mechanism, String user) {
        return ScramKeys.code(mechanism).flatMap(code -> credentials.get().get(user, code));
    }

    @Override
    public boolean checkPlain(String user, char[] password) {
        return false;
    }

    @Override
    public String toString() {
        return "the metadata image's SCRAM credentials";
    }
}
