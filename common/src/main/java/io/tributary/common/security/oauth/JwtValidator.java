package io.tributary.common.security.oauth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Validates an OAUTHBEARER client's token as Kafka's broker-side validator does (KIP-768): a signed
 * JWT in compact form (RFC 7519, RFC 7515: {@code base64url(header) "." base64url(claims) "."
 * base64url(signature)}, the signature over the first two parts as ASCII), verified with a key of
 * the configured JWKS, then its claims checked.
 *
 * <p>Refused, each with the reason in the exception's message:
 *
 * <ul>
 *   <li>anything but three base64url parts whose first two are JSON objects;
 *   <li>an {@code alg} that is not RS256/384/512, PS256/384/512 or ES256/384/512 ({@code none} and
 *       the HMAC algorithms included: a JWKS holds public keys); a {@code crit} header;
 *   <li>a {@code kid} that no key has, after one fetch of the JWKS ({@link
 *       JwksSource#keysWithUnknownKid}); a signature that no key of the algorithm's type (and, for
 *       EC, curve) verifies;
 *   <li>no {@code exp}, or {@code now - skew >= exp} (seconds, as jose4j compares); an {@code nbf}
 *       with {@code now + skew < nbf}; no {@code iat}, or a negative one;
 *   <li>an {@code iss} other than the expected issuer (when one is set); an {@code aud} (a string
 *       or an array) naming none of the expected audiences (when some are set), or none at all;
 *   <li>a sub claim that is missing, not a string or blank; a scope claim that is neither a string
 *       nor an array of distinct non-blank strings.
 * </ul>
 *
 * Thread-safe.
 */
public final class JwtValidator {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Base64.Decoder BASE64URL = Base64.getUrlDecoder();

    /** A JWS algorithm this validator verifies. */
    private record Algorithm(
            String jdkName, String keyType, Optional<String> curve, int signatureBytes, PSSParameterSpec pss) {

        Signature verifier() throws GeneralSecurityException {
            Signature signature = Signature.getInstance(jdkName);
            if (pss != null) {
                signature.setParameter(pss);
            }
            return signature;
        }
    }

    private static final Map<String, Algorithm> ALGORITHMS = Map.of(
            "RS256", rsa("SHA256withRSA"),
            "RS384", rsa("SHA384withRSA"),
            "RS512", rsa("SHA512withRSA"),
            "PS256", pss("SHA-256", MGF1ParameterSpec.SHA256, 32),
            "PS384", pss("SHA-384", MGF1ParameterSpec.SHA384, 48),
            "PS512", pss("SHA-512", MGF1ParameterSpec.SHA512, 64),
            "ES256", ec("SHA256withECDSAinP1363Format", "P-256", 64),
            "ES384", ec("SHA384withECDSAinP1363Format", "P-384", 96),
            "ES512", ec("SHA512withECDSAinP1363Format", "P-521", 132));

    /** The algorithms accepted. */
    public static final Set<String> SUPPORTED_ALGORITHMS = ALGORITHMS.keySet();

    private static Algorithm rsa(String jdkName) {
        return new Algorithm(jdkName, "RSA", Optional.empty(), -1, null);
    }

    private static Algorithm pss(String digest, MGF1ParameterSpec mgf, int saltBytes) {
        return new Algorithm(
                "RSASSA-PSS", "RSA", Optional.empty(), -1, new PSSParameterSpec(digest, "MGF1", mgf, saltBytes, 1));
    }

    private static Algorithm ec(String jdkName, String curve, int signatureBytes) {
        return new Algorithm(jdkName, "EC", Optional.of(curve), signatureBytes, null);
    }

    private final JwtValidationSettings settings;
    private final JwksSource jwks;
    private final InstantSource clock;

    public JwtValidator(JwtValidationSettings settings, JwksSource jwks, InstantSource clock) {
        this.settings = settings;
        this.jwks = jwks;
        this.clock = clock;
    }

    /** The key source, for its counters. */
    public JwksSource jwks() {
        return jwks;
    }

    /**
     * The token {@code compact} stands for.
     *
     * @throws InvalidTokenException when it is refused
     */
    public ValidatedJwt validate(String compact) {
        String[] parts = compact.split("\\.", -1);
        if (parts.length != 3) {
            throw new InvalidTokenException("the token has " + parts.length + " parts, not 3");
        }
        JsonNode header = object(parts[0], "header");
        JsonNode claims = object(parts[1], "claims");
        String alg = string(header, "alg").orElseThrow(() -> new InvalidTokenException("the header has no alg"));
        Algorithm algorithm = ALGORITHMS.get(alg);
        if (algorithm == null) {
            throw new InvalidTokenException("alg " + alg + " is not one of " + SUPPORTED_ALGORITHMS);
        }
        if (header.has("crit")) {
            throw new InvalidTokenException("the header has crit parameters, which are not understood");
        }
        verify(parts, alg, algorithm, string(header, "kid"));
        return checkClaims(compact, claims);
    }

    private void verify(String[] parts, String alg, Algorithm algorithm, Optional<String> kid) {
        byte[] signed = (parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
        byte[] signature = decode(parts[2], "signature");
        if (algorithm.signatureBytes() > 0 && signature.length != algorithm.signatureBytes()) {
            throw new InvalidTokenException("a signature of alg " + alg + " is " + algorithm.signatureBytes()
                    + " bytes, not " + signature.length);
        }
        JsonWebKeySet keys = jwks.keys();
        if (kid.isPresent() && !keys.hasKid(kid.get())) {
            keys = jwks.keysWithUnknownKid(kid.get());
            if (!keys.hasKid(kid.get())) {
                throw new InvalidTokenException("no key of the JWKS has kid " + kid.get());
            }
        }
        List<JsonWebKeySet.Key> candidates = new ArrayList<>();
        for (JsonWebKeySet.Key key : keys.keys()) {
            if (key.type().equals(algorithm.keyType())
                    && (algorithm.curve().isEmpty() || algorithm.curve().equals(key.curve()))
                    && key.algorithm().map(alg::equals).orElse(true)
                    && (kid.isEmpty() || kid.equals(key.kid()))) {
                candidates.add(key);
            }
        }
        if (candidates.isEmpty()) {
            throw new InvalidTokenException("no key of the JWKS can verify a signature of alg " + alg
                    + kid.map(k -> " with kid " + k).orElse(""));
        }
        for (JsonWebKeySet.Key key : candidates) {
            try {
                Signature verifier = algorithm.verifier();
                verifier.initVerify(key.key());
                verifier.update(signed);
                if (verifier.verify(signature)) {
                    return;
                }
            } catch (GeneralSecurityException e) {
                // A key the signature does not fit: try the next.
            }
        }
        throw new InvalidTokenException("the " + alg + " signature does not verify");
    }

    private ValidatedJwt checkClaims(String compact, JsonNode claims) {
        long now = clock.instant().getEpochSecond();
        long skew = settings.clockSkew().toSeconds();
        long exp = seconds(claims, "exp").orElseThrow(() -> new InvalidTokenException("the token has no exp"));
        if (now - skew >= exp) {
            throw new InvalidTokenException("the token expired at " + exp + " (now " + now + ", skew " + skew + " s)");
        }
        Optional<Long> nbf = seconds(claims, "nbf");
        if (nbf.isPresent() && now + skew < nbf.get()) {
            throw new InvalidTokenException("the token is not valid before " + nbf.get() + " (now " + now + ")");
        }
        long iat = seconds(claims, "iat").orElseThrow(() -> new InvalidTokenException("the token has no iat"));
        if (iat < 0) {
            throw new InvalidTokenException("the token's iat is negative");
        }
        if (settings.expectedIssuer().isPresent()) {
            Optional<String> iss = string(claims, "iss");
            if (!iss.equals(settings.expectedIssuer())) {
                throw new InvalidTokenException("iss " + iss.orElse("(none)") + " is not the expected issuer");
            }
        }
        if (!settings.expectedAudiences().isEmpty()) {
            List<String> aud = strings(claims, "aud");
            if (aud.stream().noneMatch(settings.expectedAudiences()::contains)) {
                throw new InvalidTokenException("aud " + aud + " names none of the expected audiences");
            }
        }
        String sub = string(claims, settings.subClaimName())
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .orElseThrow(() -> new InvalidTokenException(
                        "the " + settings.subClaimName() + " claim is missing, not a string or blank"));
        return new ValidatedJwt(compact, scopes(claims), exp * 1000, sub, iat * 1000);
    }

    private Set<String> scopes(JsonNode claims) {
        JsonNode scope = claims.get(settings.scopeClaimName());
        if (scope == null || scope.isNull()) {
            return Set.of();
        }
        List<JsonNode> values = scope.isArray() ? List.copyOf(scope.values()) : List.of(scope);
        Set<String> scopes = new HashSet<>();
        for (JsonNode value : values) {
            if (!value.isString()
                    || value.stringValue().isBlank()
                    || !scopes.add(value.stringValue().trim())) {
                throw new InvalidTokenException(
                        "the " + settings.scopeClaimName() + " claim is not distinct non-blank strings");
            }
        }
        return scopes;
    }

    private static JsonNode object(String part, String what) {
        JsonNode node;
        try {
            node = JSON.readTree(new String(decode(part, what), StandardCharsets.UTF_8));
        } catch (JacksonException e) {
            throw new InvalidTokenException("the token's " + what + " is not JSON");
        }
        if (node == null || !node.isObject()) {
            throw new InvalidTokenException("the token's " + what + " is not a JSON object");
        }
        return node;
    }

    private static byte[] decode(String part, String what) {
        try {
            return BASE64URL.decode(part);
        } catch (IllegalArgumentException e) {
            throw new InvalidTokenException("the token's " + what + " is not base64url");
        }
    }

    private static Optional<String> string(JsonNode node, String member) {
        JsonNode value = node.get(member);
        return value != null && value.isString() ? Optional.of(value.stringValue()) : Optional.empty();
    }

    private static List<String> strings(JsonNode node, String member) {
        JsonNode value = node.get(member);
        if (value == null) {
            return List.of();
        }
        if (value.isString()) {
            return List.of(value.stringValue());
        }
        List<String> strings = new ArrayList<>();
        if (value.isArray()) {
            value.values().stream().filter(JsonNode::isString).forEach(v -> strings.add(v.stringValue()));
        }
        return strings;
    }

    /** A NumericDate claim, in whole seconds (a fraction is dropped). */
    private static Optional<Long> seconds(JsonNode node, String member) {
        JsonNode value = node.get(member);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isNumber() || !value.canConvertToLong()) {
            throw new InvalidTokenException("the token's " + member + " is not a number of seconds");
        }
        return Optional.of(value.isIntegralNumber() ? value.longValue() : (long) Math.floor(value.doubleValue()));
    }
}
