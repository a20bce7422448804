package io.tributary.common.security.sasl;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PLAIN users from a file, re-read when it changes: Tributary's counterpart of the {@code
 * user_<name>="<password>"} options a Kafka broker's {@code PlainLoginModule} JAAS entry lists.
 *
 * <p>Format: a Java properties file in UTF-8, one user a line, {@code name=password} ({@code #}
 * starts a comment; {@code \} escapes as in any properties file, so a name holding {@code =}, {@code
 * :} or a space is written with {@code \=}, {@code \:}, {@code \ }). Example:
 *
 * <pre>
 * # PLAIN users of the SASL listeners
 * alice=alice-secret
 * bob=bob-secret
 * </pre>
 *
 * <p>The file is read when this is made (a missing or unreadable file stops startup) and then, when
 * a PLAIN exchange asks for a user, at most once per {@code checkInterval}, again if its content
 * changed. A file that cannot be read later keeps the users last read (logged at WARN).
 * Passwords are compared in constant time. SCRAM credentials are not here: {@link #scram} knows no
 * one. Thread-safe.
 */
public final class PlainUsersFile implements CredentialLookup {

    private static final Logger log = LoggerFactory.getLogger(PlainUsersFile.class);

    private final Path file;
    private final Duration checkInterval;
    private final InstantSource clock;
    private Map<String, byte[]> users;
    private byte[] loadedContent;
    private Instant nextCheck;

    /**
     * Reads the file now.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read
     */
    public PlainUsersFile(Path file, Duration checkInterval, InstantSource clock) {
        this.file = Objects.requireNonNull(file, "file");
        this.checkInterval = Objects.requireNonNull(checkInterval, "checkInterval");
        this.clock = Objects.requireNonNull(clock, "clock");
        try {
            load();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the PLAIN users file " + file + ": " + e, e);
        }
        this.nextCheck = clock.instant().plus(checkInterval);
    }

    @Override
    public Optional<ScramCredentialData> scram(String mechanism, String user) {
        return Optional.empty();
    }

    @Override
    public boolean checkPlain(String user, char[] password) {
        byte[] expected = current().get(user);
        byte[] given = new String(password).getBytes(StandardCharsets.UTF_8);
        // Compare against something of the same kind for an unknown user too.
        return MessageDigest.isEqual(expected == null ? new byte[0] : expected, given) && expected != null;
    }

    /** How many users the file held when last read. */
    public synchronized int userCount() {
        return users.size();
    }

    private synchronized Map<String, byte[]> current() {
        Instant now = clock.instant();
        if (!now.isBefore(nextCheck)) {
            nextCheck = now.plus(checkInterval);
            try {
                if (load()) {
                    log.info("PLAIN users file {} changed: {} users", file, users.size());
                }
            } catch (IOException e) {
                log.warn(
                        "PLAIN users file {} cannot be read, keeping the {} users read before: {}",
                        file,
                        users.size(),
                        e.toString());
            }
        }
        return users;
    }

    /** Reads the file; parses it when its content changed. Whether it changed. */
    private boolean load() throws IOException {
        byte[] content = Files.readAllBytes(file);
        if (Arrays.equals(content, loadedContent)) {
            return false;
        }
        Properties properties = new Properties();
        try (Reader reader = new StringReader(new String(content, StandardCharsets.UTF_8))) {
            properties.load(reader);
        }
        Map<String, byte[]> read = new HashMap<>();
        properties.forEach(
                (name, password) -> read.put((String) name, ((String) password).getBytes(StandardCharsets.UTF_8)));
        users = Map.copyOf(read);
        loadedContent = content;
        return true;
    }
}
