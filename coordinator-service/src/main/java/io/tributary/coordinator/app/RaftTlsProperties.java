package io.tributary.coordinator.app;

import io.tributary.common.security.tls.SslPrincipalMapper;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.coordinator.metadata.raft.RaftTransport;
import java.nio.file.Path;
import java.util.Locale;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Mutual TLS on the Raft port ({@code tributary.coordinator.raft.ssl.*}): with a key store set,
 * the voters and each coordinator's own Raft client use Ratis's gRPC transport with mutual TLS
 * ({@link RaftTransport#mutualTls}); without one, the plaintext Netty transport. Every voter of a
 * group must have the same choice. The files are read once, at start.
 *
 * @param keystore this coordinator's certificate chain and private key: {@code location}, {@code
 *     type} ({@code PKCS12} by default, {@code JKS}, or {@code PEM}: a file holding the private key
 *     and, unless {@code certificate-chain} names another file, the chain) and {@code password}
 *     (ignored for PEM)
 * @param keyPassword the private key's password, when it differs from the store's
 * @param certificateChain with a PEM key store, the file holding the certificate chain when it is
 *     not in the key's file
 * @param truststore the authorities whose certificates the other voters and coordinators must
 *     present (required with a key store): {@code location}, {@code type} ({@code PKCS12}, {@code
 *     JKS} or {@code PEM} certificates), {@code password}. Trust only the authority that signs the
 *     coordinators' certificates: anyone holding a certificate it accepts can take part in Raft.
 */
@ConfigurationProperties("tributary.coordinator.raft.ssl")
public record RaftTlsProperties(
        @DefaultValue Store keystore,
        String keyPassword,
        Path certificateChain,
        @DefaultValue Store truststore) {

    /**
     * A key or trust store.
     *
     * @param location its file, or null for none
     * @param type {@code PKCS12}, {@code JKS} or {@code PEM}
     * @param password its password, or null
     */
    public record Store(
            Path location, @DefaultValue("PKCS12") String type, String password) {

        @Override
        public String toString() {
            return "Store[location=" + location + ", type=" + type + "]";
        }
    }

    @Override
    public String toString() {
        return "RaftTlsProperties[keystore=" + keystore + ", truststore=" + truststore + "]";
    }

    /**
     * The transport these settings describe.
     *
     * @throws IllegalArgumentException naming the setting that is missing or wrong, or the file that
     *     cannot be read
     */
    RaftTransport transport() {
        if (keystore.location() == null) {
            if (truststore.location() != null) {
                throw new IllegalArgumentException("tributary.coordinator.raft.ssl.truststore.location is set without"
                        + " tributary.coordinator.raft.ssl.keystore.location: set both for mutual TLS on the Raft"
                        + " port, or neither");
            }
            return RaftTransport.PLAIN;
        }
        if (truststore.location() == null) {
            throw new IllegalArgumentException("tributary.coordinator.raft.ssl.keystore.location needs"
                    + " tributary.coordinator.raft.ssl.truststore.location: mutual TLS checks the other voters'"
                    + " certificates against it");
        }
        String keyStoreType = type("keystore", keystore);
        if (certificateChain != null && !keyStoreType.equals(TlsSettings.PEM)) {
            throw new IllegalArgumentException(
                    "tributary.coordinator.raft.ssl.certificate-chain is read with keystore.type=PEM only");
        }
        TlsSettings settings = new TlsSettings(
                keystore.location(),
                keyStoreType,
                chars(keystore.password()),
                keyPassword == null ? null : keyPassword.toCharArray(),
                truststore.location(),
                type("truststore", truststore),
                truststore.password() == null ? null : truststore.password().toCharArray(),
                TlsSettings.ClientAuth.REQUIRED,
                TlsSettings.DEFAULT_PROTOCOLS,
                certificateChain,
                SslPrincipalMapper.DEFAULT);
        return RaftTransport.mutualTls(settings.keyManagers()[0], settings.trustManagers()[0]);
    }

    private static String type(String name, Store store) {
        String type = store.type().toUpperCase(Locale.ROOT);
        if (!TlsSettings.STORE_TYPES.contains(type)) {
            throw new IllegalArgumentException("tributary.coordinator.raft.ssl.%s.type is PKCS12, JKS or PEM, got '%s'"
                    .formatted(name, store.type()));
        }
        return type;
    }

    private static char[] chars(String password) {
        return password == null ? new char[0] : password.toCharArray();
    }
}
