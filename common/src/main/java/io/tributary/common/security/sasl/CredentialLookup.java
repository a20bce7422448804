package io.tributary.common.security.sasl;

import java.util.Optional;

/**
 * Where a listener's SASL mechanisms find the users' credentials (a file, the cluster's replicated
 * credential store). Called on the connection's thread during an exchange; must be thread-safe.
 */
public interface CredentialLookup {

    /**
     * The SCRAM credential of {@code user} for {@code mechanism} ({@code SCRAM-SHA-256} or {@code
     * SCRAM-SHA-512}), or empty when the user has none for it.
     */
    Optional<ScramCredentialData> scram(String mechanism, String user);

    /** Whether {@code password} is {@code user}'s PLAIN password. Compare in constant time. */
    boolean checkPlain(String user, char[] password);

    /** No users at all: every exchange fails as for an unknown user. */
    CredentialLookup NONE = new CredentialLookup() {
        @Override
        public Optional<ScramCredentialData> scram(String mechanism, String user) {
            return Optional.empty();
        }

        @Override
        public boolean checkPlain(String user, char[] password) {
            return false;
        }

        @Override
        public String toString() {
            return "no users";
        }
    };

    /** PLAIN passwords from {@code plain}, SCRAM credentials from {@code scram}. */
    static CredentialLookup split(CredentialLookup plain, CredentialLookup scram) {
        return new CredentialLookup() {
            @Override
            public Optional<ScramCredentialData> scram(String mechanism, String user) {
                return scram.scram(mechanism, user);
            }

            @Override
            public boolean checkPlain(String user, char[] password) {
                return plain.checkPlain(user, password);
            }
        };
    }
}
