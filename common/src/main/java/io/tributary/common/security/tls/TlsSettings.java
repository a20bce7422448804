package io.tributary.common.security.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS listener's settings, with Kafka's names in the descriptions.
 *
 * @param keyStore the key store file holding the listener's certificate chain and private key
 *     ({@code ssl.keystore.location})
 * @param keyStoreType {@code PKCS12} or {@code JKS} ({@code ssl.keystore.type})
 * @param keyStorePassword its password ({@code ssl.keystore.password})
 * @param keyPassword the private key's password, or null for the store's ({@code ssl.key.password})
 * @param trustStore the authorities whose client certificates are accepted, or null to accept the
 *     JDK's default ones ({@code ssl.truststore.location}); only read when clients present
 *     certificates
 * @param trustStoreType {@code PKCS12} or {@code JKS}
 * @param trustStorePassword its password, or null
 * @param clientAuth whether clients present certificates ({@code ssl.client.auth})
 * @param protocols the TLS versions offered, from {@link #ALLOWED_PROTOCOLS} ({@code
 *     ssl.enabled.protocols}); TLS 1.3 and 1.2 by default
 */
public record TlsSettings(
        Path keyStore,
        String keyStoreType,
        char[] keyStorePassword,
        char[] keyPassword,
        Path trustStore,
        String trustStoreType,
        char[] trustStorePassword,
        ClientAuth clientAuth,
        List<String> protocols) {

    /** The TLS versions a listener may offer: older ones are broken and refused. */
    public static final Set<String> ALLOWED_PROTOCOLS = Set.of("TLSv1.3", "TLSv1.2");

    /** The default {@link #protocols}. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    /** Kafka's {@code ssl.client.auth}. */
    public enum ClientAuth {
        /** No client certificate is asked for. */
        NONE,
        /** A client certificate is asked for; a client without one is still served. */
        REQUESTED,
        /** A client without a certificate the trust store accepts is refused during the handshake. */
        REQUIRED
    }

    public TlsSettings {
        Objects.requireNonNull(keyStore, "keyStore");
        Objects.requireNonNull(keyStoreType, "keyStoreType");
        Objects.requireNonNull(keyStorePassword, "keyStorePassword");
        Objects.requireNonNull(clientAuth, "clientAuth");
        protocols = List.copyOf(protocols);
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("a TLS listener needs at least one protocol version");
        }
        for (String protocol : protocols) {
            if (!ALLOWED_PROTOCOLS.contains(protocol)) {
                throw new IllegalArgumentException(
                        "TLS protocol " + protocol + " is not allowed; allowed: " + ALLOWED_PROTOCOLS);
            }
        }
    }

    /**
     * The SSL context these settings describe, read from the files now.
     *
     * @throws IllegalArgumentException naming the file when a store cannot be read or opened
     */
    public SSLContext sslContext() {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(
                    load(keyStore, keyStoreType, keyStorePassword),
                    keyPassword == null ? keyStorePassword : keyPassword);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trustStore == null ? null : load(trustStore, trustStoreType, trustStorePassword));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "cannot build a TLS context from " + keyStore + ": " + e.getMessage(), e);
        }
    }

    /** Applies the server-side settings (protocol versions, client authentication) to an accepted socket. */
    public void configure(SSLSocket socket) {
        socket.setUseClientMode(false);
        socket.setEnabledProtocols(protocols.toArray(String[]::new));
        switch (clientAuth) {
            case REQUIRED -> socket.setNeedClientAuth(true);
            case REQUESTED -> socket.setWantClientAuth(true);
            case NONE -> socket.setWantClientAuth(false);
        }
    }

    private static KeyStore load(Path file, String type, char[] password) {
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore store = KeyStore.getInstance(type == null ? "PKCS12" : type);
            store.load(in, password);
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the " + type + " store " + file + ": " + e.getMessage(), e);
        }
    }
}
