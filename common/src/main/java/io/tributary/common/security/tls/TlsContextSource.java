package io.tributary.common.security.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listener's TLS context, reloaded when its files change, so that certificates rotated on disk
 * (cert-manager renewing a Secret, an operator replacing a PEM file) are used by the next
 * connections without a restart. Connections already open keep the context they started with.
 *
 * <p>How a change is seen: {@link #current()} is called once per accepted connection; at most once
 * per {@code checkInterval} it reads the files ({@link TlsSettings#files()}, a few kilobytes) and
 * compares their SHA-256 with those of the files it last loaded. Content rather than modification
 * times, because Kubernetes swaps a Secret's files through a symbolic link whose target's times say
 * little. When they differ it builds a new context; if that fails (a half-written file, a key that
 * does not match its certificate) it logs a warning, keeps serving with the context it has, and
 * tries again after the next interval. A quiet listener (no new connections) reads nothing.
 *
 * <p>Thread-safe: connection threads call {@link #current()} concurrently; one of them does a due
 * check while the others use the context they find.
 */
public final class TlsContextSource {

    private static final Logger log = LoggerFactory.getLogger(TlsContextSource.class);

    /** The default {@code checkInterval}. */
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(30);

    private final TlsSettings settings;
    private final Duration checkInterval;
    private final InstantSource clock;
    private volatile SSLContext context;
    private byte[] loadedDigest;
    private Instant nextCheck;
    private long reloads;
    private long reloadFailures;

    /**
     * Loads the context now.
     *
     * @param checkInterval how long at least between two reads of the files; zero reads them on
     *     every new connection
     * @throws IllegalArgumentException naming the file when the material cannot be read
     */
    public TlsContextSource(TlsSettings settings, Duration checkInterval, InstantSource clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.checkInterval = Objects.requireNonNull(checkInterval, "checkInterval");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (checkInterval.isNegative()) {
            throw new IllegalArgumentException(
                    "the TLS file check interval must not be negative, got " + checkInterval);
        }
        this.loadedDigest = digest(settings.files());
        this.context = settings.sslContext();
        this.nextCheck = clock.instant().plus(checkInterval);
    }

    /** The settings the context is built from. */
    public TlsSettings settings() {
        return settings;
    }

    /** The context for a new connection: the newest one built from the files as they are. */
    public SSLContext current() {
        Instant now = clock.instant();
        synchronized (this) {
            if (now.isBefore(nextCheck)) {
                return context;
            }
            nextCheck = now.plus(checkInterval);
            byte[] digest;
            try {
                digest = digest(settings.files());
            } catch (IllegalArgumentException e) {
                log.warn(
                        "TLS files of {} cannot be read, keeping the loaded ones: {}",
                        settings.keyStore(),
                        e.getMessage());
                return context;
            }
            if (Arrays.equals(digest, loadedDigest)) {
                return context;
            }
            try {
                context = settings.sslContext();
                loadedDigest = digest;
                reloads++;
                log.info("TLS files {} changed: new connections use the reloaded certificates", settings.files());
            } catch (IllegalArgumentException e) {
                reloadFailures++;
                log.warn(
                        "TLS files {} changed but cannot be loaded, keeping the previous certificates: {}",
                        settings.files(),
                        e.getMessage());
            }
            return context;
        }
    }

    /** How many times the files were reloaded since this source was made. */
    public synchronized long reloads() {
        return reloads;
    }

    /** How many looks found files that could not be read or loaded (the previous context kept). */
    public synchronized long reloadFailures() {
        return reloadFailures;
    }

    private static byte[] digest(List<Path> files) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Path file : files) {
                sha.update(file.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sha.update(Files.readAllBytes(file));
            }
            return sha.digest();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + e.getMessage(), e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
