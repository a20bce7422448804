package io.tributary.common.security.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What PEM key stores accept and refuse (the happy paths run through TLS in KafkaProtocolServerPemTest). */
class PemFilesTest {

    @TempDir
    Path dir;

    @Test
    void aPkcs1RsaKeyIsWrappedIntoThePkcs8TheJdkEncodes() throws Exception {
        var generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        byte[] pkcs8 = generator.generateKeyPair().getPrivate().getEncoded();
        // the JDK's PKCS#8: SEQUENCE(long form, 2 length bytes) | version + algorithm (18 bytes) |
        // OCTET STRING (long form, 2 length bytes) holding the PKCS#1 key
        int octetsAt = 4 + 18;
        assertThat(pkcs8[octetsAt]).isEqualTo((byte) 0x04);
        byte[] pkcs1 = Arrays.copyOfRange(pkcs8, octetsAt + 4, pkcs8.length);
        assertThat(PemFiles.Pkcs1.toPkcs8(pkcs1)).isEqualTo(pkcs8);
    }

    @Test
    void aKeyStoreWithoutItsKeyOrChainIsRefusedNamingTheFile() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.pem"), "nothing here\n");
        assertThatThrownBy(() -> PemFiles.keyStore(List.of(empty), new char[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exactly one private key, found 0")
                .hasMessageContaining("empty.pem");
        assertThatThrownBy(() -> PemFiles.trustStore(empty)).hasMessageContaining("holds no certificate");
        assertThatThrownBy(() -> PemFiles.keyStore(List.of(dir.resolve("absent.pem")), new char[0]))
                .hasMessageContaining("absent.pem");
    }

    @Test
    void anEncryptedKeyWithoutAPasswordAsksForSslKeyPassword() throws Exception {
        Path encrypted = Files.writeString(
                dir.resolve("encrypted.pem"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
        assertThatThrownBy(() -> PemFiles.keyStore(List.of(encrypted), new char[0]))
                .hasMessageContaining("set ssl.key.password");
    }
}
