package io.tributary.common.security.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.testing.TestJwts;
import io.tributary.common.testing.TestJwts.Signer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The broker-side JWT checks (KIP-768) with real tokens: keys made here, their JWKS in a file, a
 * clock the test moves. Every refusal is one test.
 */
class JwtValidatorTest {

    private static final String ISSUER = "https://issuer.test";
    private static final String AUDIENCE = "tributary";
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    private final AtomicReference<Instant> now = new AtomicReference<>(START);
    private final InstantSource clock = () -> now.get();
    private static final Signer RS256 = Signer.create("RS256", "rsa-1");
    private final Signer rs256 = RS256;
    private Path jwksFile;
    private JwksSource jwks;
    private JwtValidator validator;

    @BeforeEach
    void start() throws IOException {
        jwksFile = dir.resolve("jwks.json");
        Files.writeString(jwksFile, TestJwts.jwks(rs256));
        jwks = new JwksSource(JwksSource.Settings.of(jwksFile.toUri()), clock);
        validator = validator(new JwtValidationSettings(
                Optional.of(ISSUER), Set.of(AUDIENCE), Duration.ofSeconds(30), "sub", "scope"));
    }

    private JwtValidator validator(JwtValidationSettings settings) {
        return new JwtValidator(settings, jwks, clock);
    }

    private Map<String, Object> claims() {
        return TestJwts.claims("alice", ISSUER, AUDIENCE, START);
    }

    private void assertRefused(String token, String reason) {
        assertThatThrownBy(() -> validator.validate(token))
                .isInstanceOf(InvalidTokenException.class)
                .hasMessageContaining(reason);
    }

    @ParameterizedTest
    @ValueSource(strings = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"})
    void aTokenSignedWithEachSupportedAlgorithmIsAccepted(String alg) throws IOException {
        Signer signer = Signer.create(alg, "key-" + alg);
        Files.writeString(jwksFile, TestJwts.jwks(rs256, signer));
        jwks = new JwksSource(JwksSource.Settings.of(jwksFile.toUri()), clock);
        validator = validator(new JwtValidationSettings(
                Optional.of(ISSUER), Set.of(AUDIENCE), Duration.ofSeconds(30), "sub", "scope"));
        Map<String, Object> claims = claims();
        claims.put("scope", "produce consume");

        ValidatedJwt token = validator.validate(signer.sign(claims));

        assertThat(token.principalName()).isEqualTo("alice");
        assertThat(token.lifetimeMs()).isEqualTo((START.getEpochSecond() + 3600) * 1000);
        assertThat(token.startTimeMs()).isEqualTo((START.getEpochSecond() - 60) * 1000);
        assertThat(token.scope()).containsExactly("produce consume");
    }

    @Test
    void anUnsecuredTokenWithAlgNoneIsRefused() {
        String token = TestJwts.encode(Map.of("alg", "none")) + "." + TestJwts.encode(claims()) + ".";
        assertRefused(token, "alg none is not one of");
    }

    @Test
    void anHmacTokenIsRefused() {
        String token =
                TestJwts.encode(Map.of("alg", "HS256", "kid", "rsa-1")) + "." + TestJwts.encode(claims()) + ".c2ln";
        assertRefused(token, "alg HS256 is not one of");
    }

    @Test
    void aTamperedTokenFailsItsSignature() {
        String[] parts = rs256.sign(claims()).split("\\.");
        Map<String, Object> forged = claims();
        forged.put("sub", "admin");
        assertRefused(parts[0] + "." + TestJwts.encode(forged) + "." + parts[2], "signature does not verify");
    }

    @Test
    void aKeyOfTheSameIdButAnotherPairFailsItsSignature() {
        Signer impostor = Signer.create("RS256", "rsa-1");
        assertRefused(impostor.sign(claims()), "signature does not verify");
    }

    @Test
    void anUnknownKidFetchesTheJwksOnceAndIsRefusedWhenStillUnknown() {
        long before = jwks.fetches();
        Signer stranger = new Signer("RS256", "rsa-unknown", RS256.keys());

        assertRefused(stranger.sign(claims()), "no key of the JWKS has kid rsa-unknown");
        assertThat(jwks.fetches()).isEqualTo(before + 1);

        // Another unknown kid within the interval: no second fetch.
        assertRefused(
                new Signer("RS256", "rsa-other", RS256.keys()).sign(claims()), "no key of the JWKS has kid rsa-other");
        assertThat(jwks.fetches()).isEqualTo(before + 1);
    }

    @Test
    void aRotatedKeyIsFoundByTheFetchItsUnknownKidTriggers() throws IOException {
        Signer rotated = Signer.create("ES256", "ec-2");
        Files.writeString(jwksFile, TestJwts.jwks(rs256, rotated));

        assertThat(validator.validate(rotated.sign(claims())).principalName()).isEqualTo("alice");
    }

    @Test
    void theJwksIsFetchedAgainOnceItIsOlderThanTheRefreshInterval() {
        long before = jwks.fetches();
        validator.validate(rs256.sign(claims()));
        assertThat(jwks.fetches()).isEqualTo(before);

        now.set(START.plus(JwksSource.Settings.DEFAULT_REFRESH));
        Map<String, Object> claims = TestJwts.claims("alice", ISSUER, AUDIENCE, now.get());
        validator.validate(rs256.sign(claims));
        assertThat(jwks.fetches()).isEqualTo(before + 1);
    }

    @Test
    void anEsTokenIsNotVerifiedWithAnRsaKeyNorWithAnotherCurve() throws IOException {
        Signer es384 = Signer.create("ES384", "ec-384");
        Files.writeString(jwksFile, TestJwts.jwks(rs256, es384));
        Map<String, Object> header = new LinkedHashMap<>(Map.of("alg", "ES256"));
        // No kid: every key is a candidate, none is a P-256 key.
        assertRefused(es384.sign(header, claims()), "a signature of alg ES256 is 64 bytes, not 96");
        Signer es256 = Signer.create("ES256", "ec-256");
        assertRefused(
                es256.sign(Map.of("alg", "ES256"), claims()), "no key of the JWKS can verify a signature of alg ES256");
    }

    @Test
    void aKeyPinnedToAnotherAlgorithmIsNotUsed() {
        // rs256's JWK says alg RS256; a PS256 token with its kid finds no usable key.
        Signer pss = new Signer("PS256", "rsa-1", rs256.keys());
        assertRefused(pss.sign(claims()), "no key of the JWKS can verify a signature of alg PS256 with kid rsa-1");
    }

    @Test
    void aCriticalHeaderIsRefused() {
        Map<String, Object> header = new LinkedHashMap<>(Map.of("alg", "RS256", "kid", "rsa-1"));
        header.put("crit", List.of("exp"));
        assertRefused(rs256.sign(header, claims()), "crit");
    }

    @Test
    void anExpiredTokenIsRefusedBeyondTheSkewAndAcceptedWithinIt() {
        Map<String, Object> claims = claims();
        claims.put("exp", START.getEpochSecond() - 30);
        assertRefused(rs256.sign(claims), "the token expired at");
        claims.put("exp", START.getEpochSecond() - 29);
        assertThat(validator.validate(rs256.sign(claims)).principalName()).isEqualTo("alice");
    }

    @Test
    void aTokenNotYetValidIsRefusedBeyondTheSkewAndAcceptedWithinIt() {
        Map<String, Object> claims = claims();
        claims.put("nbf", START.getEpochSecond() + 31);
        assertRefused(rs256.sign(claims), "not valid before");
        claims.put("nbf", START.getEpochSecond() + 30);
        assertThat(validator.validate(rs256.sign(claims)).principalName()).isEqualTo("alice");
    }

    @Test
    void aTokenWithoutExpOrIatIsRefused() {
        Map<String, Object> claims = claims();
        claims.remove("exp");
        assertRefused(rs256.sign(claims), "no exp");
        claims = claims();
        claims.remove("iat");
        assertRefused(rs256.sign(claims), "no iat");
        claims = claims();
        claims.put("exp", "tomorrow");
        assertRefused(rs256.sign(claims), "exp is not a number");
    }

    @Test
    void aWrongOrMissingIssuerIsRefused() {
        Map<String, Object> claims = claims();
        claims.put("iss", "https://elsewhere.test");
        assertRefused(rs256.sign(claims), "iss https://elsewhere.test is not the expected issuer");
        claims.remove("iss");
        assertRefused(rs256.sign(claims), "iss (none)");
    }

    @Test
    void theAudienceMustNameAnExpectedOne() {
        Map<String, Object> claims = claims();
        claims.put("aud", "another-service");
        assertRefused(rs256.sign(claims), "names none of the expected audiences");
        claims.remove("aud");
        assertRefused(rs256.sign(claims), "aud [] names none");
        claims.put("aud", List.of("another-service", AUDIENCE));
        assertThat(validator.validate(rs256.sign(claims)).principalName()).isEqualTo("alice");
    }

    @Test
    void withoutExpectationsAnyIssuerAndAudienceAreAccepted() {
        validator = validator(new JwtValidationSettings(Optional.empty(), Set.of(), Duration.ZERO, "sub", "scope"));
        Map<String, Object> claims = claims();
        claims.remove("iss");
        claims.put("aud", "anything");
        assertThat(validator.validate(rs256.sign(claims)).principalName()).isEqualTo("alice");
    }

    @Test
    void theSubjectMustBeANonBlankString() {
        Map<String, Object> claims = claims();
        claims.put("sub", "  ");
        assertRefused(rs256.sign(claims), "the sub claim is missing, not a string or blank");
        claims.put("sub", 42);
        assertRefused(rs256.sign(claims), "the sub claim");
        claims.remove("sub");
        assertRefused(rs256.sign(claims), "the sub claim");
    }

    @Test
    void theSubjectAndScopeClaimNamesAreConfigurable() {
        validator = validator(new JwtValidationSettings(
                Optional.of(ISSUER), Set.of(AUDIENCE), Duration.ofSeconds(30), "client_id", "scp"));
        Map<String, Object> claims = claims();
        claims.put("client_id", "billing-service");
        claims.put("scp", List.of("write", "read"));

        ValidatedJwt token = validator.validate(rs256.sign(claims));

        assertThat(token.principalName()).isEqualTo("billing-service");
        assertThat(token.scope()).containsExactlyInAnyOrder("read", "write");
    }

    @Test
    void repeatedOrBlankScopesAreRefused() {
        Map<String, Object> claims = claims();
        claims.put("scope", List.of("read", "read"));
        assertRefused(rs256.sign(claims), "the scope claim is not distinct non-blank strings");
        claims.put("scope", List.of("read", " "));
        assertRefused(rs256.sign(claims), "the scope claim");
    }

    @Test
    void whatIsNotACompactJwtIsRefused() {
        assertRefused("only.two", "2 parts, not 3");
        assertRefused("###.e30.", "header is not base64url");
        assertRefused(TestJwts.encode(Map.of("alg", "RS256")) + ".bm90IGpzb24.c2ln", "claims is not JSON");
        assertRefused("W10.e30.c2ln", "header is not a JSON object");
    }
}
