package io.tributary.common.security.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Key and trust material from PEM files (RFC 7468 text: {@code -----BEGIN <label>-----}, base64 of
 * the DER bytes, {@code -----END <label>-----}), as Kafka's {@code ssl.keystore.type=PEM} and
 * {@code ssl.truststore.type=PEM} read them, turned into in-memory key stores for the JDK's key and
 * trust managers.
 *
 * <p>Labels read: {@code CERTIFICATE} (X.509), {@code PRIVATE KEY} (PKCS#8, RSA, EC or EdDSA),
 * {@code ENCRYPTED PRIVATE KEY} (PKCS#8 encrypted with the key password, PBES2 as {@code openssl
 * pkcs8 -topk8 -v2 aes-256-cbc} writes it) and, beyond Kafka, {@code RSA PRIVATE KEY} (PKCS#1, what
 * cert-manager writes for RSA keys unless told {@code encoding: PKCS8}), which is wrapped into
 * PKCS#8 here. Text outside the blocks (openssl's "Bag Attributes" lines) is ignored. Plain Java,
 * stateless.
 */
public final class PemFiles {

    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]+?)\\s*-----END \\1-----", Pattern.DOTALL);

    /** The alias of the key entry in the stores made here. */
    static final String KEY_ALIAS = "key";

    private PemFiles() {}

    /** One PEM block: its label and its DER bytes. */
    record Block(String label, byte[] der) {}

    /** The blocks of {@code text}, in order. */
    static List<Block> blocks(String text) {
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(text);
        while (matcher.find()) {
            blocks.add(new Block(matcher.group(1), Base64.getMimeDecoder().decode(matcher.group(2))));
        }
        return blocks;
    }

    /**
     * A key store with one entry: the private key found in {@code files} and the certificate chain
     * (leaf first, in file order) found in them, protected by {@code keyPassword}.
     *
     * @param keyPassword the password of an encrypted key, and the entry's password; may be empty
     * @throws IllegalArgumentException naming the files when there is not exactly one private key,
     *     no certificate, or the key cannot be read
     */
    public static KeyStore keyStore(List<Path> files, char[] keyPassword) {
        List<Block> blocks = read(files);
        List<PrivateKey> keys = new ArrayList<>();
        List<Certificate> chain = new ArrayList<>();
        for (Block block : blocks) {
            switch (block.label()) {
                case "CERTIFICATE" -> chain.add(certificate(block.der(), files));
                case "PRIVATE KEY" -> keys.add(privateKey(block.der(), files));
                case "RSA PRIVATE KEY" -> keys.add(privateKey(Pkcs1.toPkcs8(block.der()), files));
                case "ENCRYPTED PRIVATE KEY" -> keys.add(privateKey(decrypt(block.der(), keyPassword, files), files));
                default -> {
                    // Other blocks (parameters, CSRs) carry nothing a key store needs.
                }
            }
        }
        if (keys.size() != 1) {
            throw new IllegalArgumentException(
                    "a PEM key store needs exactly one private key, found %d in %s".formatted(keys.size(), files));
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a PEM key store needs its certificate chain, found none in " + files);
        }
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(KEY_ALIAS, keys.getFirst(), keyPassword, chain.toArray(Certificate[]::new));
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot hold the key of " + files + ": " + e.getMessage(), e);
        }
    }

    /**
     * A trust store with every certificate of {@code file}.
     *
     * @throws IllegalArgumentException naming the file when it holds no certificate
     */
    public static KeyStore trustStore(Path file) {
        List<Path> files = List.of(file);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (Block block : read(files)) {
                if (block.label().equals("CERTIFICATE")) {
                    store.setCertificateEntry("ca-" + i++, certificate(block.der(), files));
                }
            }
            if (i == 0) {
                throw new IllegalArgumentException("the PEM trust store " + file + " holds no certificate");
            }
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot hold the certificates of " + file + ": " + e.getMessage(), e);
        }
    }

    private static List<Block> read(List<Path> files) {
        List<Block> blocks = new ArrayList<>();
        for (Path file : files) {
            try {
                blocks.addAll(blocks(Files.readString(file, StandardCharsets.US_ASCII)));
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read the PEM file " + file + ": " + e, e);
            }
        }
        return blocks;
    }

    private static Certificate certificate(byte[] der, List<Path> files) {
        try {
            return CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("a certificate in " + files + " cannot be read: " + e.getMessage(), e);
        }
    }

    private static PrivateKey privateKey(byte[] pkcs8, List<Path> files) {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(pkcs8);
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException("the private key in " + files + " is not an RSA, EC or EdDSA PKCS#8 key");
    }

    private static byte[] decrypt(byte[] der, char[] password, List<Path> files) {
        if (password == null || password.length == 0) {
            throw new IllegalArgumentException(
                    "the private key in " + files + " is encrypted: set ssl.key.password to its password");
        }
        try {
            EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
            SecretKeyFactory factory = SecretKeyFactory.getInstance(info.getAlgName());
            Cipher cipher = Cipher.getInstance(info.getAlgName());
            cipher.init(Cipher.DECRYPT_MODE, factory.generateSecret(new PBEKeySpec(password)), info.getAlgParameters());
            return info.getKeySpec(cipher).getEncoded();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "the encrypted private key in " + files + " cannot be decrypted with ssl.key.password: " + e, e);
        }
    }

    /**
     * PKCS#1 {@code RSAPrivateKey} to PKCS#8 {@code PrivateKeyInfo} (RFC 5208), DER:
     *
     * <pre>
     * 30 len                                   SEQUENCE
     *    02 01 00                              INTEGER 0 (version)
     *    30 0d                                 SEQUENCE (AlgorithmIdentifier)
     *       06 09 2a 86 48 86 f7 0d 01 01 01   OID 1.2.840.113549.1.1.1 (rsaEncryption)
     *       05 00                              NULL
     *    04 len &lt;PKCS#1 bytes&gt;              OCTET STRING
     * </pre>
     */
    static final class Pkcs1 {
        private static final byte[] VERSION_AND_ALGORITHM = {
            0x02,
            0x01,
            0x00,
            0x30,
            0x0d,
            0x06,
            0x09,
            0x2a,
            (byte) 0x86,
            0x48,
            (byte) 0x86,
            (byte) 0xf7,
            0x0d,
            0x01,
            0x01,
            0x01,
            0x05,
            0x00
        };

        private Pkcs1() {}

        static byte[] toPkcs8(byte[] pkcs1) {
            byte[] octets = tagged(0x04, pkcs1);
            byte[] body = new byte[VERSION_AND_ALGORITHM.length + octets.length];
            System.arraycopy(VERSION_AND_ALGORITHM, 0, body, 0, VERSION_AND_ALGORITHM.length);
            System.arraycopy(octets, 0, body, VERSION_AND_ALGORITHM.length, octets.length);
            return tagged(0x30, body);
        }

        /** Tag, DER length (short form below 128, else 0x80 | byte count, big-endian), content. */
        private static byte[] tagged(int tag, byte[] content) {
            int length = content.length;
            byte[] lengthBytes;
            if (length < 0x80) {
                lengthBytes = new byte[] {(byte) length};
            } else {
                int count = (Integer.SIZE - Integer.numberOfLeadingZeros(length) + 7) / 8;
                lengthBytes = new byte[count + 1];
                lengthBytes[0] = (byte) (0x80 | count);
                for (int i = 0; i < count; i++) {
                    lengthBytes[count - i] = (byte) (length >>> (8 * i));
                }
            }
            byte[] out = new byte[1 + lengthBytes.length + length];
            out[0] = (byte) tag;
            System.arraycopy(lengthBytes, 0, out, 1, lengthBytes.length);
            System.arraycopy(content, 0, out, 1 + lengthBytes.length, length);
            return out;
        }
    }
}
