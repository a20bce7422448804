package io.tributary.common.security.oauth;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key set tokens are verified with, fetched from Kafka's {@code
 * sasl.oauthbearer.jwks.endpoint.url}: a {@code file:} URL read from disk, or an {@code http:} /
 * {@code https:} URL fetched with a GET (the JDK's trust store for https).
 *
 * <p>Refreshing, as Kafka's broker does it: the set is fetched when the source is made (a file that
 * cannot be read stops startup; an endpoint that cannot be reached is logged and retried), then
 * again once it is older than {@code refreshInterval} ({@code
 * sasl.oauthbearer.jwks.endpoint.refresh.ms}), by the first validation that finds it stale. A
 * failed fetch keeps the previous keys and is retried no sooner than a backoff that starts at
 * {@code retryBackoff} and doubles up to {@code retryBackoffMax} ({@code ...retry.backoff.ms},
 * {@code ...retry.backoff.max.ms}). A token whose {@code kid} no key has (the provider rotated its
 * keys) makes one fetch at once, unless an unknown kid made one within {@code
 * unknownKeyRefreshInterval}: a client sending made-up key ids cannot make the broker hammer the
 * provider.
 *
 * <p>Thread-safe: one fetch at a time; a validation that finds another thread fetching uses the
 * keys it has (or waits, when there are none yet). Fetches are bounded by {@code fetchTimeout} and
 * {@code maxBytes}.
 */
public final class JwksSource {

    private static final Logger log = LoggerFactory.getLogger(JwksSource.class);

    /**
     * Where the keys are and how they are refreshed.
     *
     * @param url {@code file:}, {@code http:} or {@code https:}
     * @param refreshInterval how old the keys may get before they are fetched again
     * @param retryBackoff the wait before retrying a failed fetch, doubled at each failure
     * @param retryBackoffMax the longest such wait
     * @param unknownKeyRefreshInterval the least time between two fetches made for an unknown
     *     {@code kid}
     * @param fetchTimeout how long one fetch may take (connect and read)
     * @param maxBytes the largest key set read
     */
    public record Settings(
            URI url,
            Duration refreshInterval,
            Duration retryBackoff,
            Duration retryBackoffMax,
            Duration unknownKeyRefreshInterval,
            Duration fetchTimeout,
            int maxBytes) {

        /** Kafka's default {@code sasl.oauthbearer.jwks.endpoint.refresh.ms}: one hour. */
        public static final Duration DEFAULT_REFRESH = Duration.ofHours(1);
        /** Kafka's default {@code sasl.oauthbearer.jwks.endpoint.retry.backoff.ms}. */
        public static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofMillis(100);
        /** Kafka's default {@code sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms}. */
        public static final Duration DEFAULT_RETRY_BACKOFF_MAX = Duration.ofSeconds(10);
        /** At most one fetch every 10 s for tokens naming unknown keys. */
        public static final Duration DEFAULT_UNKNOWN_KEY_REFRESH = Duration.ofSeconds(10);
        /** One fetch may take 10 s. */
        public static final Duration DEFAULT_FETCH_TIMEOUT = Duration.ofSeconds(10);
        /** Key sets are a few KiB; 1 MiB is far beyond any real one. */
        public static final int DEFAULT_MAX_BYTES = 1 << 20;

        public Settings {
            Objects.requireNonNull(url, "url");
            String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("file") && !scheme.equals("http") && !scheme.equals("https")) {
                throw new IllegalArgumentException("the JWKS URL " + url + " is not file:, http: or https:");
            }
            for (Duration d :
                    new Duration[] {refreshInterval, retryBackoff, retryBackoffMax, unknownKeyRefreshInterval}) {
                if (d.isNegative()) {
                    throw new IllegalArgumentException("a JWKS interval is negative: " + d);
                }
            }
            if (!fetchTimeout.isPositive() || maxBytes <= 0) {
                throw new IllegalArgumentException("the JWKS fetch timeout and size must be positive");
            }
        }

        /** Kafka's defaults for {@code url}. */
        public static Settings of(URI url) {
            return new Settings(
                    url,
                    DEFAULT_REFRESH,
                    DEFAULT_RETRY_BACKOFF,
                    DEFAULT_RETRY_BACKOFF_MAX,
                    DEFAULT_UNKNOWN_KEY_REFRESH,
                    DEFAULT_FETCH_TIMEOUT,
                    DEFAULT_MAX_BYTES);
        }

        boolean isFile() {
            return url.getScheme().equalsIgnoreCase("file");
        }
    }

    private final Settings settings;
    private final InstantSource clock;
    private final HttpClient http;
    private final ReentrantLock fetching = new ReentrantLock();
    private final AtomicLong fetches = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile JsonWebKeySet keys;
    /** When the keys were last fetched successfully; guarded by {@link #fetching}. */
    private Instant fetchedAt = Instant.MIN;
    /** When the last fetch for an unknown kid started; guarded by {@link #fetching}. */
    private Instant unknownKidFetchAt = Instant.MIN;
    /** No fetch before this after a failure; guarded by {@link #fetching}. */
    private Instant retryNotBefore = Instant.MIN;

    private Duration backoff;

    /**
     * Fetches the keys once.
     *
     * @throws IllegalArgumentException when the URL is a file that cannot be read or is not a key
     *     set
     */
    public JwksSource(Settings settings, InstantSource clock) {
        this.settings = settings;
        this.clock = clock;
        this.backoff = settings.retryBackoff();
        this.http = settings.isFile()
                ? null
                : HttpClient.newBuilder()
                        .connectTimeout(settings.fetchTimeout())
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build();
        fetching.lock();
        try {
            if (!fetch() && settings.isFile()) {
                throw new IllegalArgumentException("cannot read the JWKS file " + settings.url());
            }
        } finally {
            fetching.unlock();
        }
    }

    /** The keys to verify with now: fetched again first when they are stale and a fetch is due. */
    public JsonWebKeySet keys() {
        JsonWebKeySet current = keys;
        if (current != null && !fetching.tryLock()) {
            return current; // another thread is fetching: use what there is
        }
        if (current == null) {
            fetching.lock();
        }
        try {
            Instant now = clock.instant();
            if (keys == null || !now.isBefore(fetchedAt.plus(settings.refreshInterval()))) {
                if (!now.isBefore(retryNotBefore)) {
                    fetch();
                }
            }
            return keys == null ? JsonWebKeySet.EMPTY : keys;
        } finally {
            fetching.unlock();
        }
    }

    /**
     * The keys after a token named {@code kid}, which none has: fetched again at once unless another
     * unknown kid made a fetch within {@code unknownKeyRefreshInterval} or a failed fetch's backoff
     * is running.
     */
    public JsonWebKeySet keysWithUnknownKid(String kid) {
        fetching.lock();
        try {
            Instant now = clock.instant();
            if ((keys == null || !keys.hasKid(kid))
                    && !now.isBefore(unknownKidFetchAt.plus(settings.unknownKeyRefreshInterval()))
                    && !now.isBefore(retryNotBefore)) {
                unknownKidFetchAt = now;
                log.info("A token names key id {} that the JWKS from {} lacks: fetching it again", kid, settings.url());
                fetch();
            }
            return keys == null ? JsonWebKeySet.EMPTY : keys;
        } finally {
            fetching.unlock();
        }
    }

    /** Fetches made (successful or not). */
    public long fetches() {
        return fetches.get();
    }

    /** Fetches that failed (the previous keys kept). */
    public long failures() {
        return failures.get();
    }

    /** One fetch; the caller holds {@link #fetching}. True when it succeeded. */
    private boolean fetch() {
        Instant now = clock.instant();
        fetches.incrementAndGet();
        try {
            JsonWebKeySet fetched = JsonWebKeySet.parse(read());
            if (fetched.keys().isEmpty()) {
                log.warn("The JWKS from {} holds no key that can verify a token", settings.url());
            }
            keys = fetched;
            fetchedAt = now;
            retryNotBefore = Instant.MIN;
            backoff = settings.retryBackoff();
            return true;
        } catch (IOException | IllegalArgumentException e) {
            failures.incrementAndGet();
            retryNotBefore = now.plus(backoff);
            log.warn(
                    "Cannot fetch the JWKS from {} (keeping {} keys, retrying in {} at the earliest): {}",
                    settings.url(),
                    keys == null ? 0 : keys.keys().size(),
                    backoff,
                    e.getMessage());
            Duration doubled = backoff.multipliedBy(2);
            backoff = doubled.compareTo(settings.retryBackoffMax()) > 0 ? settings.retryBackoffMax() : doubled;
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.incrementAndGet();
            return false;
        }
    }

    private String read() throws IOException, InterruptedException {
        if (settings.isFile()) {
            Path path = Path.of(settings.url());
            if (Files.size(path) > settings.maxBytes()) {
                throw new IOException("the JWKS file is over " + settings.maxBytes() + " bytes");
            }
            return Files.readString(path, StandardCharsets.UTF_8);
        }
        HttpRequest request = HttpRequest.newBuilder(settings.url())
                .timeout(settings.fetchTimeout())
                .header("Accept", "application/json")
                .GET()
                .build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) {
                throw new IOException("HTTP status " + response.statusCode());
            }
            byte[] bytes = body.readNBytes(settings.maxBytes() + 1);
            if (bytes.length > settings.maxBytes()) {
                throw new IOException("the JWKS is over " + settings.maxBytes() + " bytes");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }
}
