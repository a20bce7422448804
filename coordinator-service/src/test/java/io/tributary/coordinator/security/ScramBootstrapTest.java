package io.tributary.coordinator.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.metadata.CommandCodec;
import io.tributary.coordinator.metadata.MetadataCommand.BootstrapScramCredentials;
import io.tributary.coordinator.metadata.MetadataImage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ScramBootstrapTest {

    private static ScramBootstrap.User user(String name, String mechanism, String password, int iterations) {
        return new ScramBootstrap.User(name, mechanism, password, iterations);
    }

    @Test
    void theCommandHoldsCredentialsMadeFromThePasswordsWithFreshSaltsAndNoPassword() {
        ScramBootstrap bootstrap = new ScramBootstrap(
                List.of(
                        user("admin", "SCRAM-SHA-512", "adm1n-s3cret", 8192),
                        user("admin", "SCRAM-SHA-256", "adm1n-s3cret", 4096)),
                ScramRules.DEFAULTS);
        AtomicInteger salts = new AtomicInteger();

        BootstrapScramCredentials command = bootstrap.command(() -> new byte[] {(byte) salts.incrementAndGet()});

        MetadataImage image = MetadataImage.EMPTY.apply(command);
        var sha512 =
                image.scramCredentials().get("admin", ScramKeys.SCRAM_SHA_512).orElseThrow();
        var sha256 =
                image.scramCredentials().get("admin", ScramKeys.SCRAM_SHA_256).orElseThrow();
        assertThat(sha512.iterations()).isEqualTo(8192);
        assertThat(sha512.salt()).containsExactly(1);
        assertThat(sha256.salt()).containsExactly(2);
        assertThat(ScramKeys.matches(ScramKeys.SCRAM_SHA_512, sha512, "adm1n-s3cret".toCharArray()))
                .isTrue();
        assertThat(ScramKeys.matches(ScramKeys.SCRAM_SHA_256, sha256, "adm1n-s3cret".toCharArray()))
                .isTrue();
        assertThat(new String(CommandCodec.encode(command), StandardCharsets.ISO_8859_1))
                .doesNotContain("adm1n-s3cret");
        assertThat(bootstrap.users().toString()).doesNotContain("adm1n-s3cret");
    }

    @Test
    void badUsersAreRefusedNamingTheRule() {
        ScramRules rules = new ScramRules(1, 5, 4096, 16384);
        assertThatThrownBy(() -> new ScramBootstrap(List.of(user("a", "SCRAM-SHA-1", "p", 4096)), rules))
                .hasMessageContaining("unknown mechanism");
        assertThatThrownBy(() -> new ScramBootstrap(List.of(user("", "SCRAM-SHA-512", "p", 4096)), rules))
                .hasMessageContaining("Username must not be empty");
        assertThatThrownBy(() -> new ScramBootstrap(List.of(user("toolong", "SCRAM-SHA-512", "p", 4096)), rules))
                .hasMessageContaining("the limit is 5");
        assertThatThrownBy(() -> new ScramBootstrap(
                        List.of(user("tributary-coordinator", "SCRAM-SHA-512", "p", 4096)), ScramRules.DEFAULTS))
                .hasMessageContaining("is reserved");
        assertThatThrownBy(() -> new ScramBootstrap(List.of(user("a", "SCRAM-SHA-512", "p", 100)), rules))
                .hasMessageContaining("Too few iterations");
        assertThatThrownBy(() -> new ScramBootstrap(List.of(user("a", "SCRAM-SHA-512", "", 4096)), rules))
                .hasMessageContaining("the password is empty");
        assertThatThrownBy(() -> new ScramBootstrap(
                        List.of(user("a", "SCRAM-SHA-512", "p", 4096), user("a", "SCRAM-SHA-512", "q", 4096)), rules))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> new ScramBootstrap(
                        List.of(user("a", "SCRAM-SHA-512", "p", 4096), user("b", "SCRAM-SHA-512", "q", 4096)), rules))
                .hasMessageContaining("the limit is 1");
    }
}
