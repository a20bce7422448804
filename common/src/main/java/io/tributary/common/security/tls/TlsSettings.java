package io.tributary.common.security.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;

/**
 * A TLS listener's settings, with Kafka's names in the descriptions.
 *
 * @param keyStore the key store file holding the listener's certificate chain and private key
 *     ({@code ssl.keystore.location}); with {@code PEM}, a file with the private key and, unless
 *     {@code certificateChain} names another, the chain
 * @param keyStoreType {@code PKCS12}, {@code JKS} or {@code PEM} ({@code ssl.keystore.type}; see
 *     {@link PemFiles} for what PEM files may hold)
 * @param keyStorePassword its password ({@code ssl.keystore.password}); ignored for {@code PEM}
 *     (may be empty)
 * @param keyPassword the private key's password, or null for the store's ({@code ssl.key.password});
 *     with {@code PEM}, the password of an encrypted key
 * @param trustStore the authorities whose client certificates are accepted, or null to accept the
 *     JDK's default ones ({@code ssl.truststore.location}); only read when clients present
 *     certificates
 * @param trustStoreType {@code PKCS12}, {@code JKS} or {@code PEM} (certificates)
 * @param trustStorePassword its password, or null
 * @param clientAuth whether clients present certificates ({@code ssl.client.auth})
 * @param protocols the TLS versions offered, from {@link #ALLOWED_PROTOCOLS} ({@code
 *     ssl.enabled.protocols}); TLS 1.3 and 1.2 by default
 * @param certificateChain with {@code PEM}, the file holding the certificate chain when it is not in
 *     {@code keyStore} (cert-manager's {@code tls.crt} beside {@code tls.key}), else null
 * @param principalMapper how a client certificate's subject becomes the principal's name ({@code
 *     ssl.principal.mapping.rules})
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
        List<String> protocols,
        Path certificateChain,
        SslPrincipalMapper principalMapper) {

    /** The key and trust store type read from PEM files ({@link PemFiles}). */
    public static final String PEM = "PEM";

    /** Every key and trust store type read here (upper case), {@link #PEM} and the JDK's. */
    public static final Set<String> STORE_TYPES = Set.of("JKS", "PKCS12", PEM);

    /** Settings without a separate chain file, with Kafka's default principal mapping. */
    public TlsSettings(
            Path keyStore,
            String keyStoreType,
            char[] keyStorePassword,
            char[] keyPassword,
            Path trustStore,
            String trustStoreType,
            char[] trustStorePassword,
            ClientAuth clientAuth,
            List<String> protocols) {
        this(
                keyStore,
                keyStoreType,
                keyStorePassword,
                keyPassword,
                trustStore,
                trustStoreType,
                trustStorePassword,
                clientAuth,
                protocols,
                null,
                SslPrincipalMapper.DEFAULT);
    }

    /**
     * The files these settings read: the key store, the chain file and the trust store, those that
     * are set. A change to any of them is what a reload looks for ({@link TlsContextSource}).
     */
    public List<Path> files() {
        List<Path> files = new ArrayList<>();
        files.add(keyStore);
        if (certificateChain != null) {
            files.add(certificateChain);
        }
        if (trustStore != null) {
            files.add(trustStore);
        }
        return List.copyOf(files);
    }

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
        Objects.requireNonNull(principalMapper, "principalMapper");
        if (certificateChain != null && !PEM.equalsIgnoreCase(keyStoreType)) {
            throw new IllegalArgumentException(
                    "a separate certificate chain file is only read with key store type PEM");
        }
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
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers(), trustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "cannot build a TLS context from " + keyStore + ": " + e.getMessage(), e);
        }
    }

    /**
     * The key managers of the key store (this side's certificate chain and private key), read from
     * the files now: for a TLS stack that takes them rather than an {@link SSLContext} (the
     * coordinators' Raft transport).
     *
     * @throws IllegalArgumentException naming the file when the store cannot be read or opened
     */
    public KeyManager[] keyManagers() {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            if (PEM.equalsIgnoreCase(keyStoreType)) {
                char[] entryPassword = keyPassword == null ? new char[0] : keyPassword;
                List<Path> pemFiles =
                        certificateChain == null ? List.of(keyStore) : List.of(keyStore, certificateChain);
                keys.init(PemFiles.keyStore(pemFiles, entryPassword), entryPassword);
            } else {
                keys.init(
                        TrustStores.load(keyStore, keyStoreType, keyStorePassword),
                        keyPassword == null ? keyStorePassword : keyPassword);
            }
            return keys.getKeyManagers();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "cannot build a TLS context from " + keyStore + ": " + e.getMessage(), e);
        }
    }

    /**
     * The trust managers of the trust store (the authorities whose peers' certificates are
     * accepted), or the JDK's default authorities when there is none; read from the files now.
     */
    public TrustManager[] trustManagers() {
        return TrustStores.trustManagers(trustStore, trustStoreType, trustStorePassword);
    }

    /** Applies the server-side settings (protocol versions, client authentication) to an accepted connection's engine. */
    public void configure(SSLEngine engine) {
        engine.setUseClientMode(false);
        engine.setEnabledProtocols(protocols.toArray(String[]::new));
        switch (clientAuth) {
            case REQUIRED -> engine.setNeedClientAuth(true);
            case REQUESTED -> engine.setWantClientAuth(true);
            case NONE -> engine.setWantClientAuth(false);
        }
    }
}
