package io.tributary.common.security.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.tributary.common.testing.TestJwts;
import io.tributary.common.testing.TestJwts.Signer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JWKS fetched from an http endpoint on 127.0.0.1 that the test runs (and from a file): the
 * refresh interval, the retry backoff after failures, the bounded fetch for an unknown key id.
 */
class JwksSourceTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Signer K1 = Signer.create("RS256", "k1");
    private static final Signer K2 = Signer.create("ES256", "k2");

    private final AtomicReference<Instant> now = new AtomicReference<>(START);
    private final InstantSource clock = () -> now.get();
    private final AtomicReference<String> served = new AtomicReference<>();
    private final AtomicInteger status = new AtomicInteger(200);
    private final AtomicInteger requests = new AtomicInteger();
    private HttpServer http;

    @BeforeEach
    void startEndpoint() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/jwks", exchange -> {
            requests.incrementAndGet();
            byte[] body = served.get().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status.get(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        http.start();
    }

    @AfterEach
    void stopEndpoint() {
        http.stop(0);
    }

    private JwksSource.Settings settings() {
        return new JwksSource.Settings(
                URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/jwks"),
                Duration.ofMinutes(10),
                Duration.ofSeconds(1),
                Duration.ofSeconds(3),
                Duration.ofSeconds(10),
                Duration.ofSeconds(5),
                64 * 1024);
    }

    @Test
    void theKeysAreFetchedAtStartAndAgainOnlyOnceStale() {
        served.set(TestJwts.jwks(K1));
        JwksSource source = new JwksSource(settings(), clock);
        assertThat(requests).hasValue(1);
        assertThat(source.keys().hasKid("k1")).isTrue();

        served.set(TestJwts.jwks(K2));
        now.set(START.plus(Duration.ofMinutes(10)).minusMillis(1));
        assertThat(source.keys().hasKid("k1")).isTrue();
        assertThat(requests).hasValue(1);

        now.set(START.plus(Duration.ofMinutes(10)));
        assertThat(source.keys().hasKid("k2")).isTrue();
        assertThat(source.keys().hasKid("k1")).isFalse();
        assertThat(requests).hasValue(2);
    }

    @Test
    void aFailedFetchKeepsTheKeysAndIsRetriedAfterADoublingBackoff() {
        served.set(TestJwts.jwks(K1));
        JwksSource source = new JwksSource(settings(), clock);
        status.set(503);
        now.set(START.plus(Duration.ofMinutes(10)));

        assertThat(source.keys().hasKid("k1")).isTrue(); // fetch 2 fails: backoff 1 s
        assertThat(source.failures()).isEqualTo(1);
        now.set(now.get().plusMillis(999));
        source.keys();
        assertThat(requests).hasValue(2);
        now.set(now.get().plusMillis(1));
        source.keys(); // fetch 3 fails: backoff 2 s
        assertThat(requests).hasValue(3);
        now.set(now.get().plusMillis(1999));
        source.keys();
        assertThat(requests).hasValue(3);
        now.set(now.get().plusMillis(1));
        source.keys(); // fetch 4 fails: backoff capped at 3 s
        assertThat(requests).hasValue(4);
        now.set(now.get().plusMillis(3000));
        status.set(200);
        source.keys();
        assertThat(requests).hasValue(5);
        assertThat(source.failures()).isEqualTo(3);
        assertThat(source.keys().hasKid("k1")).isTrue();
    }

    @Test
    void anUnknownKidFetchesAtOnceButAtMostOncePerInterval() {
        served.set(TestJwts.jwks(K1));
        JwksSource source = new JwksSource(settings(), clock);
        served.set(TestJwts.jwks(K1, K2));

        assertThat(source.keysWithUnknownKid("k2").hasKid("k2")).isTrue();
        assertThat(requests).hasValue(2);

        source.keysWithUnknownKid("made-up");
        assertThat(requests).hasValue(2);
        now.set(START.plus(Duration.ofSeconds(10)));
        source.keysWithUnknownKid("made-up");
        assertThat(requests).hasValue(3);
    }

    @Test
    void anEndpointDownAtStartIsRetriedAndVerifiesNothingMeanwhile() {
        served.set("");
        status.set(500);
        JwksSource source = new JwksSource(settings(), clock);
        assertThat(source.keys().keys()).isEmpty();

        status.set(200);
        served.set(TestJwts.jwks(K1));
        now.set(START.plusSeconds(1));
        assertThat(source.keys().hasKid("k1")).isTrue();
    }

    @Test
    void aSetOverTheSizeBoundIsRefused() {
        served.set(TestJwts.jwks(K1) + " ".repeat(64 * 1024));
        JwksSource source = new JwksSource(settings(), clock);
        assertThat(source.failures()).isEqualTo(1);
        assertThat(source.keys().keys()).isEmpty();
    }

    @Test
    void aFileThatCannotBeReadStopsStartup(@TempDir Path dir) {
        assertThatThrownBy(() -> new JwksSource(
                        JwksSource.Settings.of(dir.resolve("missing.json").toUri()), clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot read the JWKS file");
    }

    @Test
    void onlyFileAndHttpUrlsAreAccepted() {
        assertThatThrownBy(() -> JwksSource.Settings.of(URI.create("ftp://127.0.0.1/jwks")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not file:, http: or https:");
    }

    @Test
    void keysThatCannotVerifyAreLeftOut() {
        String jwks = "{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\",\"kid\":\"h\"},"
                + "{\"kty\":\"RSA\",\"n\":\"AQAB\",\"e\":\"AQAB\",\"kid\":\"short\"},"
                + "{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"enc\",\"use\":\"enc\",\"x\":\"AA\",\"y\":\"AA\"}]}";
        assertThat(JsonWebKeySet.parse(jwks).keys()).isEmpty();
        assertThatThrownBy(() -> JsonWebKeySet.parse("[]"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"keys\" array");
    }
}
