package io.tributary.common.security.sasl;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.oauth.JwksSource;
import io.tributary.common.security.oauth.JwtValidationSettings;
import io.tributary.common.security.oauth.JwtValidator;
import io.tributary.common.security.sasl.SaslSession.Reauthentication;
import io.tributary.common.security.sasl.SaslSession.Route;
import io.tributary.common.security.sasl.SaslSession.Step;
import io.tributary.common.testing.TestJwts;
import io.tributary.common.testing.TestJwts.Signer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One connection's SASL session on a clock the test moves: the session lifetime each completing
 * answer carries (KIP-368), re-authentication on the same connection and Kafka's rules for it, the
 * close of an expired session, and OAUTHBEARER's exchange with Kafka's {@code invalid_token} error.
 */
class SaslSessionReauthenticationTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Signer KEY = Signer.create("ES256", "ec-1");

    @TempDir
    static Path dir;

    private static JwksSource jwks;

    private final AtomicReference<Instant> now = new AtomicReference<>(START);
    private final InstantSource clock = () -> now.get();

    @BeforeAll
    static void writeJwks() throws IOException {
        Path file = dir.resolve("jwks.json");
        Files.writeString(file, TestJwts.jwks(KEY));
        jwks = new JwksSource(JwksSource.Settings.of(file.toUri()), InstantSource.system());
    }

    /** PLAIN users alice and bob, password "pw"; OAUTHBEARER tokens of KEY for audience "kafka". */
    private SaslSession session(Duration plainMaxReauth, Duration oauthMaxReauth) {
        CredentialLookup users = new CredentialLookup() {
            @Override
            public Optional<ScramCredentialData> scram(String mechanism, String user) {
                return Optional.empty();
            }

            @Override
            public boolean checkPlain(String user, char[] password) {
                return Set.of("alice", "bob").contains(user) && new String(password).equals("pw");
            }
        };
        JwtValidator validator = new JwtValidator(
                new JwtValidationSettings(
                        Optional.of("issuer"), Set.of("kafka"), Duration.ofSeconds(30), "sub", "scope"),
                jwks,
                clock);
        SaslSettings settings = new SaslSettings(
                List.of("PLAIN", "OAUTHBEARER"),
                users,
                Optional.of(validator),
                Map.of("PLAIN", plainMaxReauth, "OAUTHBEARER", oauthMaxReauth));
        return new SaslSession(settings, "127.0.0.1", clock);
    }

    private static SaslHandshakeRequest handshake(String mechanism) {
        return new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism))
                .build((short) 1);
    }

    private static SaslAuthenticateRequest authenticate(byte[] token) {
        return new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(token))
                .build((short) 2);
    }

    private static byte[] plain(String user) {
        return ("\0" + user + "\0pw").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bearer(String token) {
        return ("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(StandardCharsets.UTF_8);
    }

    private String token(String sub, Instant expires) {
        Map<String, Object> claims = TestJwts.claims(sub, "issuer", "kafka", START);
        claims.put("exp", expires.getEpochSecond());
        return KEY.sign(claims);
    }

    private static AbstractRequest describeCluster() {
        return new DescribeClusterRequest.Builder(new DescribeClusterRequestData()).build((short) 0);
    }

    /** Routes and handles one SASL request as the listener does; the step. */
    private static Step exchange(SaslSession session, AbstractRequest request) {
        assertThat(session.route(request)).isEqualTo(Route.EXCHANGE);
        return session.handle(request);
    }

    private static long login(SaslSession session, String mechanism, byte[] token) {
        Step handshake = exchange(session, handshake(mechanism));
        assertThat(((SaslHandshakeResponse) handshake.response()).data().errorCode())
                .isEqualTo(Errors.NONE.code());
        Step step = exchange(session, authenticate(token));
        SaslAuthenticateResponse response = (SaslAuthenticateResponse) step.response();
        assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
        assertThat(session.authenticated()).isTrue();
        return response.data().sessionLifetimeMs();
    }

    @Test
    void withoutMaxReauthAPlainSessionNeverExpiresAndASecondHandshakeIsIllegalButKeepsTheConnection() {
        SaslSession session = session(Duration.ZERO, Duration.ZERO);
        assertThat(login(session, "PLAIN", plain("alice"))).isZero();
        assertThat(session.sessionExpiresAtMs()).isEmpty();

        now.set(START.plus(Duration.ofDays(1)));
        assertThat(session.route(describeCluster())).isEqualTo(Route.SERVE);
        Step again = exchange(session, handshake("PLAIN"));
        assertThat(((SaslHandshakeResponse) again.response()).data().errorCode())
                .isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
        assertThat(again.closeAfter()).isFalse();
        Step authenticateAgain = exchange(session, authenticate(plain("alice")));
        assertThat(((SaslAuthenticateResponse) authenticateAgain.response())
                        .data()
                        .errorMessage())
                .isEqualTo("SaslAuthenticate request received after successful authentication");
        assertThat(authenticateAgain.closeAfter()).isFalse();
        assertThat(session.route(describeCluster())).isEqualTo(Route.SERVE);
    }

    @Test
    void aSessionExpiresAfterMaxReauthAndOnlyAHandshakeMayFollow() {
        SaslSession session = session(Duration.ofSeconds(2), Duration.ZERO);
        assertThat(login(session, "PLAIN", plain("alice"))).isEqualTo(2000);

        now.set(START.plusMillis(2000));
        assertThat(session.route(describeCluster())).isEqualTo(Route.SERVE);
        now.set(START.plusMillis(2001));
        assertThat(session.route(describeCluster())).isEqualTo(Route.EXPIRED);

        // Re-authenticating is still allowed, and renews the session.
        Step handshake = exchange(session, handshake("PLAIN"));
        assertThat(handshake.reauthentication()).isEqualTo(Reauthentication.NONE);
        Step done = exchange(session, authenticate(plain("alice")));
        assertThat(done.reauthentication()).isEqualTo(Reauthentication.SUCCEEDED);
        assertThat(((SaslAuthenticateResponse) done.response()).data().sessionLifetimeMs())
                .isEqualTo(2000);
        assertThat(session.principal()).isEqualTo(KafkaPrincipal.user("alice"));
        assertThat(session.route(describeCluster())).isEqualTo(Route.SERVE);
        assertThat(session.sessionExpiresAtMs()).hasValue(START.plusMillis(4001).toEpochMilli());
    }

    @Test
    void aSecondReauthenticationWithinASecondIsAnsweredIllegal() {
        SaslSession session = session(Duration.ofSeconds(5), Duration.ZERO);
        login(session, "PLAIN", plain("alice"));
        now.set(START.plusSeconds(3));
        assertThat(login(session, "PLAIN", plain("alice"))).isEqualTo(5000);

        now.set(START.plusSeconds(3).plusMillis(999));
        Step tooSoon = exchange(session, handshake("PLAIN"));
        assertThat(((SaslHandshakeResponse) tooSoon.response()).data().errorCode())
                .isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
        assertThat(tooSoon.closeAfter()).isFalse();
        now.set(START.plusSeconds(4));
        assertThat(login(session, "PLAIN", plain("alice"))).isEqualTo(5000);
    }

    @Test
    void aReauthenticationAsAnotherPrincipalFailsAndCloses() {
        SaslSession session = session(Duration.ofSeconds(2), Duration.ZERO);
        login(session, "PLAIN", plain("alice"));
        now.set(START.plusSeconds(1));
        exchange(session, handshake("PLAIN"));

        Step step = exchange(session, authenticate(plain("bob")));

        SaslAuthenticateResponse response = (SaslAuthenticateResponse) step.response();
        assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
        assertThat(response.data().errorMessage())
                .isEqualTo("Cannot change principals during re-authentication from User.alice: User.bob");
        assertThat(step.closeAfter()).isTrue();
        assertThat(step.reauthentication()).isEqualTo(Reauthentication.FAILED);
    }

    @Test
    void aReauthenticationWithAnotherMechanismIsAcceptedThenClosedWithoutAnswer() {
        SaslSession session = session(Duration.ofSeconds(2), Duration.ZERO);
        login(session, "PLAIN", plain("alice"));
        now.set(START.plusSeconds(1));

        Step handshake = exchange(session, handshake("OAUTHBEARER"));
        assertThat(((SaslHandshakeResponse) handshake.response()).data().errorCode())
                .isEqualTo(Errors.NONE.code());
        Step next = exchange(session, authenticate(bearer(token("alice", START.plusSeconds(60)))));

        assertThat(next.response()).isNull();
        assertThat(next.closeAfter()).isTrue();
        assertThat(next.reauthentication()).isEqualTo(Reauthentication.FAILED);
    }

    @Test
    void aWrongPasswordOnReauthenticationSaysReauthentication() {
        SaslSession session = session(Duration.ofSeconds(2), Duration.ZERO);
        login(session, "OAUTHBEARER", bearer(token("alice", START.plusSeconds(60))));
        now.set(START.plusSeconds(1));
        exchange(session, handshake("OAUTHBEARER"));

        Step step = exchange(session, authenticate("not a client first message".getBytes(StandardCharsets.UTF_8)));

        assertThat(((SaslAuthenticateResponse) step.response()).data().errorMessage())
                .isEqualTo("Authentication failed during re-authentication due to invalid credentials with SASL"
                        + " mechanism OAUTHBEARER");
        assertThat(step.reauthentication()).isEqualTo(Reauthentication.FAILED);
    }

    @Test
    void anOAuthBearerSessionLastsUntilTheTokenExpiresOrMaxReauthIfSooner() {
        SaslSession unbounded = session(Duration.ZERO, Duration.ZERO);
        assertThat(login(unbounded, "OAUTHBEARER", bearer(token("alice", START.plusSeconds(90)))))
                .isEqualTo(90_000);
        assertThat(unbounded.principal()).isEqualTo(KafkaPrincipal.user("alice"));

        SaslSession bounded = session(Duration.ZERO, Duration.ofSeconds(20));
        assertThat(login(bounded, "OAUTHBEARER", bearer(token("alice", START.plusSeconds(90)))))
                .isEqualTo(20_000);

        // Expired but within the clock skew: accepted with a session of 0 ms, so the next request closes it.
        SaslSession skewed = session(Duration.ZERO, Duration.ofSeconds(20));
        assertThat(login(skewed, "OAUTHBEARER", bearer(token("alice", START.minusSeconds(10)))))
                .isZero();
        now.set(START.plusMillis(1));
        assertThat(skewed.route(describeCluster())).isEqualTo(Route.EXPIRED);
    }

    @Test
    void aRefusedTokenIsAnsweredWithKafkasInvalidTokenChallengeThenFails() {
        SaslSession session = session(Duration.ZERO, Duration.ZERO);
        exchange(session, handshake("OAUTHBEARER"));
        Map<String, Object> claims = TestJwts.claims("alice", "issuer", "another-cluster", START);

        Step challenge = exchange(session, authenticate(bearer(KEY.sign(claims))));

        SaslAuthenticateResponse first = (SaslAuthenticateResponse) challenge.response();
        assertThat(Errors.forCode(first.data().errorCode())).isEqualTo(Errors.NONE);
        assertThat(new String(first.data().authBytes(), StandardCharsets.UTF_8))
                .isEqualTo("{\"status\":\"invalid_token\"}");
        assertThat(challenge.closeAfter()).isFalse();

        Step failed = exchange(session, authenticate(new byte[] {0x01}));

        SaslAuthenticateResponse last = (SaslAuthenticateResponse) failed.response();
        assertThat(Errors.forCode(last.data().errorCode())).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
        assertThat(last.data().errorMessage()).isEqualTo("{\"status\":\"invalid_token\"}");
        assertThat(failed.closeAfter()).isTrue();
        assertThat(session.authenticated()).isFalse();
    }
}
