package io.tributary.common.security.sasl;

import java.util.Arrays;
import java.util.Objects;

/**
 * A stored SCRAM credential (RFC 5802): what a server keeps instead of the password. {@code
 * storedKey} = H(HMAC(SaltedPassword, "Client Key")), {@code serverKey} = HMAC(SaltedPassword,
 * "Server Key"), SaltedPassword = Hi(password, salt, iterations); H and HMAC are SHA-256 or SHA-512
 * for SCRAM-SHA-256 and SCRAM-SHA-512.
 *
 * @param salt the salt the client hashes its password with
 * @param storedKey verifies the client's proof
 * @param serverKey signs the server's final message, proving the server knew the credential
 * @param iterations Hi's iteration count (Kafka accepts 4096 to 16384)
 */
public record ScramCredentialData(byte[] salt, byte[] storedKey, byte[] serverKey, int iterations) {

    public ScramCredentialData {
        Objects.requireNonNull(salt, "salt");
        Objects.requireNonNull(storedKey, "storedKey");
        Objects.requireNonNull(serverKey, "serverKey");
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] storedKey() {
        return storedKey.clone();
    }

    @Override
    public byte[] serverKey() {
        return serverKey.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScramCredentialData other
                && iterations == other.iterations
                && Arrays.equals(salt, other.salt)
                && Arrays.equals(storedKey, other.storedKey)
                && Arrays.equals(serverKey, other.serverKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(salt), Arrays.hashCode(storedKey), Arrays.hashCode(serverKey), iterations);
    }

    @Override
    public String toString() {
        return "ScramCredentialData[iterations=" + iterations + ", keys redacted]";
    }
}
