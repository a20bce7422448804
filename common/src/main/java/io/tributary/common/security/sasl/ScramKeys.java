package io.tributary.common.security.sasl;

import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The SCRAM mechanisms' names and wire codes, and the derivation of a stored credential (RFC 5802)
 * from what an administrator gives: a salted password (Kafka's AlterUserScramCredentials carries
 * {@code SaltedPassword = Hi(password, salt, iterations)}, never the password) or a password (a
 * bootstrap user in a coordinator's settings). The hashing is kafka-clients' {@code ScramFormatter},
 * the code Kafka's controller derives the keys with, so a credential made here is one a Kafka client
 * authenticates against.
 *
 * <p>Mechanism codes are Kafka's ({@code org.apache.kafka.clients.admin.ScramMechanism#type}): 1 for
 * SCRAM-SHA-256, 2 for SCRAM-SHA-512; 0 and anything else is unknown. They are the codes Tributary's
 * metadata formats store.
 *
 * <p>Thread-safety: stateless.
 */
public final class ScramKeys {

    /** Kafka's code of SCRAM-SHA-256. */
    public static final int SCRAM_SHA_256 = 1;

    /** Kafka's code of SCRAM-SHA-512. */
    public static final int SCRAM_SHA_512 = 2;

    /** The known mechanism codes, ascending. */
    public static final List<Integer> CODES = List.of(SCRAM_SHA_256, SCRAM_SHA_512);

    /**
     * The fewest iterations a kafka-clients SCRAM client accepts from a server (both mechanisms'
     * {@code minIterations}); Kafka's controller refuses fewer too.
     */
    public static final int MIN_ITERATIONS = 4096;

    /** The most iterations Kafka's controller accepts. */
    public static final int MAX_ITERATIONS = 16384;

    private ScramKeys() {}

    /** The mechanism name ({@code SCRAM-SHA-256}) of a code, or empty when the code is unknown. */
    public static Optional<String> name(int code) {
        return switch (code) {
            case SCRAM_SHA_256 -> Optional.of("SCRAM-SHA-256");
            case SCRAM_SHA_512 -> Optional.of("SCRAM-SHA-512");
            default -> Optional.empty();
        };
    }

    /** The code of a mechanism name, or empty when the name is not a SCRAM mechanism Tributary knows. */
    public static Optional<Integer> code(String name) {
        return CODES.stream().filter(c -> name(c).orElseThrow().equals(name)).findFirst();
    }

    /**
     * The stored credential for a salted password: {@code storedKey = H(HMAC(saltedPassword, "Client
     * Key"))}, {@code serverKey = HMAC(saltedPassword, "Server Key")}.
     *
     * @throws IllegalArgumentException for an unknown code or an empty salted password (an HMAC
     *     needs a key)
     */
    public static ScramCredentialData fromSaltedPassword(int code, byte[] salt, byte[] saltedPassword, int iterations) {
        Objects.requireNonNull(salt, "salt");
        Objects.requireNonNull(saltedPassword, "saltedPassword");
        if (saltedPassword.length == 0) {
            throw new IllegalArgumentException("the salted password must not be empty");
        }
        ScramFormatter formatter = formatter(code);
        try {
            return new ScramCredentialData(
                    salt,
                    formatter.storedKey(formatter.clientKey(saltedPassword)),
                    formatter.serverKey(saltedPassword),
                    iterations);
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException("cannot derive SCRAM keys: " + e.getMessage(), e);
        }
    }

    /**
     * The stored credential for a password with this salt and iteration count (the password is
     * normalized as RFC 5802 asks, as kafka-clients does).
     *
     * @throws IllegalArgumentException for an unknown code or an empty password
     */
    public static ScramCredentialData fromPassword(int code, String password, byte[] salt, int iterations) {
        Objects.requireNonNull(password, "password");
        if (password.isEmpty()) {
            throw new IllegalArgumentException("the password must not be empty");
        }
        return fromSaltedPassword(code, salt, saltedPassword(code, password, salt, iterations), iterations);
    }

    /**
     * Whether {@code password} is the one {@code credential} was made from: its salted password gives
     * the same stored key (compared in constant time). Costs one {@code Hi} of the credential's
     * iterations.
     */
    public static boolean matches(int code, ScramCredentialData credential, char[] password) {
        if (password.length == 0) {
            return false;
        }
        String text = new String(password);
        byte[] salted = saltedPassword(code, text, credential.salt(), credential.iterations());
        try {
            ScramFormatter formatter = formatter(code);
            byte[] storedKey = formatter.storedKey(formatter.clientKey(salted));
            return MessageDigest.isEqual(storedKey, credential.storedKey());
        } catch (InvalidKeyException e) {
            return false;
        } finally {
            Arrays.fill(salted, (byte) 0);
        }
    }

    private static byte[] saltedPassword(int code, String password, byte[] salt, int iterations) {
        try {
            return formatter(code).saltedPassword(password, salt, iterations);
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException("cannot salt the password: " + e.getMessage(), e);
        }
    }

    private static ScramFormatter formatter(int code) {
        String name = name(code).orElseThrow(() -> new IllegalArgumentException("unknown SCRAM mechanism " + code));
        try {
            return new ScramFormatter(ScramMechanism.forMechanismName(name));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM lacks the hash of " + name, e);
        }
    }
}
