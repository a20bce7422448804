package io.tributary.common.testing;

import io.tributary.common.security.tls.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * TLS material for tests, made by the JDK's {@code keytool} in a directory: a test CA, keys with
 * certificates signed by it (or self-signed), trust stores, and the same as PEM files. Every store
 * and key uses {@link #PASSWORD}; certificates are valid for two days.
 */
public final class TestCertificates {

    /** The password of every store and key made here. */
    public static final String PASSWORD = "test-store-secret";

    private final Path dir;

    public TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** The directory the files are in. */
    public Path dir() {
        return dir;
    }

    /** A test CA ({@code basicConstraints CA:true}): {@code <name>.p12} with its key, {@code <name>.pem} its certificate. */
    public Path ca(String name) throws IOException, InterruptedException {
        keyPair(name, "CN=" + name + ",O=Tributary test", name + ".p12", "-ext", "bc:c");
        exportCertificate(name, name + ".p12", name + ".pem");
        return dir.resolve(name + ".pem");
    }

    /**
     * A key and self-signed certificate for {@code dname} in the PKCS12 store {@code <alias>.p12},
     * with {@code extra} keytool options ({@code -ext SAN=ip:127.0.0.1}).
     */
    public Path keyPair(String alias, String dname, String store, String... extra)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                dname,
                "-validity",
                "2",
                "-keystore",
                store,
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD));
        args.addAll(List.of(extra));
        keytool(args.toArray(String[]::new));
        return dir.resolve(store);
    }

    /**
     * A key for {@code dname} whose certificate the CA {@code ca} (made by {@link #ca}) signs for
     * 127.0.0.1 and localhost, in {@code <alias>.p12} with the chain (leaf, CA).
     */
    public Path signedServer(String ca, String alias, String dname) throws IOException, InterruptedException {
        return signed(ca, alias, dname, "serverAuth", "SAN=ip:127.0.0.1,dns:localhost");
    }

    /**
     * As {@link #signedServer}, for the host names and addresses of {@code san} ({@code
     * SAN=dns:elsewhere.example}) instead.
     */
    public Path signedServer(String ca, String alias, String dname, String san)
            throws IOException, InterruptedException {
        return signed(ca, alias, dname, "serverAuth", san);
    }

    /**
     * As {@link #signedServer}, for a peer of mutual TLS: the certificate serves as a server's and
     * as a client's ({@code extendedKeyUsage} serverAuth and clientAuth).
     */
    public Path signedPeer(String ca, String alias, String dname) throws IOException, InterruptedException {
        return signed(ca, alias, dname, "serverAuth,clientAuth", "SAN=ip:127.0.0.1,dns:localhost");
    }

    private Path signed(String ca, String alias, String dname, String keyUsage, String san)
            throws IOException, InterruptedException {
        String store = alias + ".p12";
        keyPair(alias, dname, store, "-ext", san);
        keytool("-certreq", "-alias", alias, "-keystore", store, "-storepass", PASSWORD, "-file", alias + ".csr");
        keytool(
                "-gencert",
                "-alias",
                ca,
                "-keystore",
                ca + ".p12",
                "-storepass",
                PASSWORD,
                "-infile",
                alias + ".csr",
                "-outfile",
                alias + ".crt",
                "-rfc",
                "-validity",
                "2",
                "-ext",
                san,
                "-ext",
                "EKU=" + keyUsage);
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                ca,
                "-file",
                ca + ".pem",
                "-keystore",
                store,
                "-storepass",
                PASSWORD);
        keytool("-importcert", "-alias", alias, "-file", alias + ".crt", "-keystore", store, "-storepass", PASSWORD);
        return dir.resolve(store);
    }

    /**
     * A TLS listener's settings serving the key and chain of {@code <alias>.p12} (made by {@link
     * #signedServer} or {@link #keyPair}), without client certificates, TLS 1.3 and 1.2.
     */
    public TlsSettings serverTls(String alias) {
        return new TlsSettings(
                dir.resolve(alias + ".p12"),
                "PKCS12",
                PASSWORD.toCharArray(),
                null,
                null,
                "PKCS12",
                null,
                TlsSettings.ClientAuth.NONE,
                TlsSettings.DEFAULT_PROTOCOLS);
    }

    /**
     * A self-signed server key for localhost and 127.0.0.1 in {@code server.p12} (alias {@code
     * server}), its certificate in {@code server.pem}, and a trust store of it for clients, {@code
     * client-trust.p12}.
     */
    public void selfSignedLocalhostServer() throws IOException, InterruptedException {
        keyPair("server", "CN=localhost", "server.p12", "-ext", "SAN=ip:127.0.0.1,dns:localhost");
        exportCertificate("server", "server.p12", "server.pem");
        trustStore("server", "server.pem", "client-trust.p12");
    }

    /** Writes the certificate of {@code alias} in {@code store} as PEM to {@code pemFile}. */
    public Path exportCertificate(String alias, String store, String pemFile) throws IOException, InterruptedException {
        keytool("-exportcert", "-alias", alias, "-keystore", store, "-storepass", PASSWORD, "-rfc", "-file", pemFile);
        return dir.resolve(pemFile);
    }

    /** A PKCS12 trust store {@code store} holding the PEM certificate {@code pemFile} under {@code alias}. */
    public Path trustStore(String alias, String pemFile, String store) throws IOException, InterruptedException {
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                alias,
                "-file",
                pemFile,
                "-keystore",
                store,
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD);
        return dir.resolve(store);
    }

    /** The private key of {@code alias} in the PKCS12 {@code store}, as unencrypted PKCS#8 PEM text. */
    public String privateKeyPem(String store, String alias) throws IOException {
        try {
            return pem("PRIVATE KEY", ((PrivateKey) load(store).getKey(alias, PASSWORD.toCharArray())).getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IOException(e);
        }
    }

    /** The certificate chain of {@code alias} in the PKCS12 {@code store} (leaf first), as PEM text. */
    public String chainPem(String store, String alias) throws IOException {
        try {
            StringBuilder text = new StringBuilder();
            for (Certificate certificate : load(store).getCertificateChain(alias)) {
                text.append(pem("CERTIFICATE", certificate.getEncoded()));
            }
            return text.toString();
        } catch (GeneralSecurityException e) {
            throw new IOException(e);
        }
    }

    /**
     * The key and chain of {@code alias} (in {@code <alias>.p12}) as cert-manager writes them:
     * {@code tls.key} and {@code tls.crt} to their PEM texts.
     */
    public Map<String, String> tlsSecret(String alias) throws IOException {
        return Map.of("tls.key", privateKeyPem(alias + ".p12", alias), "tls.crt", chainPem(alias + ".p12", alias));
    }

    private KeyStore load(String store) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(dir.resolve(store))) {
            KeyStore keyStore = KeyStore.getInstance("PKCS12");
            keyStore.load(in, PASSWORD.toCharArray());
            return keyStore;
        }
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    /** Runs the JDK's keytool in the directory; fails with its output when it fails. */
    public void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.add("-J-Xmx64m");
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("keytool " + List.of(args) + " failed: " + output);
        }
    }
}
