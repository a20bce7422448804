package io.tributary.coordinator.security;

import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.internal.InternalUsers;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.ScramCredentials;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The SCRAM credentials this coordinator's Kafka listener accepts: those of Tributary's own
 * processes ({@link InternalUsers#isInternal}: the brokers, which forward their clients' group
 * requests after their own ACL checks, and the coordinators) in the voter's latest applied metadata
 * image, read on every lookup. A client's user is unknown here, even with a credential in the
 * store: it reaches the groups through a broker, which checks its ACLs. SCRAM only: no PLAIN
 * passwords.
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
        if (!InternalUsers.isInternal(KafkaPrincipal.user(user))) {
            return Optional.empty();
        }
        return ScramKeys.code(mechanism).flatMap(code -> credentials.get().get(user, code));
    }

    @Override
    public boolean checkPlain(String user, char[] password) {
        return false;
    }

    @Override
    public String toString() {
        return "the internal users' SCRAM credentials of the metadata image";
    }
}
