package io.tributary.common.security.sasl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PLAIN users from a properties file, re-read when it changes, at most once per check interval. */
class PlainUsersFileTest {

    @TempDir
    Path dir;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final InstantSource clock = () -> now.get();

    @Test
    void aListedUserWithItsPasswordIsAcceptedAndNothingElse() throws Exception {
        Path file = Files.writeString(
                dir.resolve("users"), "# users\nalice=alice-secret\nb\\=ob=pässword\n", StandardCharsets.UTF_8);
        PlainUsersFile users = new PlainUsersFile(file, Duration.ofSeconds(30), clock);
        assertThat(users.checkPlain("alice", "alice-secret".toCharArray())).isTrue();
        assertThat(users.checkPlain("b=ob", "pässword".toCharArray())).isTrue();
        assertThat(users.checkPlain("alice", "wrong".toCharArray())).isFalse();
        assertThat(users.checkPlain("mallory", "".toCharArray())).isFalse();
        assertThat(users.scram("SCRAM-SHA-512", "alice")).isEmpty();
        assertThat(users.userCount()).isEqualTo(2);
    }

    @Test
    void aChangedFileIsReadAgainOnceTheCheckIntervalHasPassed() throws Exception {
        Path file = Files.writeString(dir.resolve("users"), "alice=one\n");
        PlainUsersFile users = new PlainUsersFile(file, Duration.ofSeconds(30), clock);
        Files.writeString(file, "alice=two\nbob=three\n");
        now.set(now.get().plusSeconds(29));
        assertThat(users.checkPlain("alice", "one".toCharArray())).isTrue();
        now.set(now.get().plusSeconds(1));
        assertThat(users.checkPlain("alice", "one".toCharArray())).isFalse();
        assertThat(users.checkPlain("alice", "two".toCharArray())).isTrue();
        assertThat(users.checkPlain("bob", "three".toCharArray())).isTrue();
    }

    @Test
    void aFileThatDisappearsKeepsTheUsersReadBefore() throws Exception {
        Path file = Files.writeString(dir.resolve("users"), "alice=one\n");
        PlainUsersFile users = new PlainUsersFile(file, Duration.ZERO, clock);
        Files.delete(file);
        assertThat(users.checkPlain("alice", "one".toCharArray())).isTrue();
    }

    @Test
    void aMissingFileStopsStartupNamingIt() {
        Path missing = dir.resolve("absent");
        assertThatThrownBy(() -> new PlainUsersFile(missing, Duration.ZERO, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(missing.toString());
    }
}
