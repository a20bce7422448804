package io.tributary.common.security.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Key and trust stores read from files ({@code PKCS12}, {@code JKS}, or {@code PEM} certificates for
 * a trust store), for listeners ({@link TlsSettings}) and for Tributary's own TLS clients (a broker
 * calling the coordinators' control plane over HTTPS).
 */
public final class TrustStores {

    private TrustStores() {}

    /**
     * The trust managers of {@code file}'s authorities, or of the JDK's default ones when {@code
     * file} is null.
     *
     * @param type {@code PEM}, {@code PKCS12} or {@code JKS} (null: PKCS12)
     * @throws IllegalArgumentException naming the file when it cannot be read
     */
    public static TrustManager[] trustManagers(Path file, String type, char[] password) {
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (file == null) {
                trust.init((KeyStore) null);
            } else if (TlsSettings.PEM.equalsIgnoreCase(type)) {
                trust.init(PemFiles.trustStore(file));
            } else {
                trust.init(load(file, type, password));
            }
            return trust.getTrustManagers();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use the trust store " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * A TLS client's context that trusts {@code file}'s authorities (the JDK's when null) and
     * presents no certificate.
     */
    public static SSLContext clientContext(Path file, String type, char[] password) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trustManagers(file, type, password), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS is part of every Java runtime", e);
        }
    }

    /**
     * A {@code PKCS12} or {@code JKS} store.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or opened
     */
    static KeyStore load(Path file, String type, char[] password) {
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore store = KeyStore.getInstance(type == null ? "PKCS12" : type);
            store.load(in, password);
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the " + type + " store " + file + ": " + e.getMessage(), e);
        }
    }
}
