package io.tributary.common.security.oauth;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The public keys of a JSON Web Key Set (RFC 7517), as an identity provider publishes them at its
 * {@code jwks_uri}: a JSON object whose {@code keys} array holds one object per key. Read here:
 *
 * <ul>
 *   <li>{@code kty}: {@code RSA} (members {@code n} and {@code e}, the modulus and exponent as
 *       unsigned big-endian integers in base64url without padding) or {@code EC} (members {@code
 *       crv}, one of {@code P-256}, {@code P-384}, {@code P-521}, and {@code x}, {@code y}, the
 *       point's coordinates, likewise)
 *   <li>{@code kid}: the key's id, matched against a token header's {@code kid} (optional)
 *   <li>{@code alg}: the one algorithm the key may be used with (optional)
 *   <li>{@code use}: {@code sig} or absent for a signing key; a key for another use ({@code enc}) is
 *       never used to verify
 * </ul>
 *
 * Keys of another type (symmetric {@code oct}, {@code OKP}), RSA keys under 2048 bits and keys
 * whose members cannot be read are left out (logged at DEBUG): a set holding only such keys
 * verifies nothing. Immutable.
 */
public final class JsonWebKeySet {

    private static final Logger log = LoggerFactory.getLogger(JsonWebKeySet.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The shortest RSA modulus accepted, in bits (RFC 7518 section 3.3). */
    public static final int MIN_RSA_BITS = 2048;

    /** JWK curve names and the JDK's. */
    private static final Map<String, String> CURVES =
            Map.of("P-256", "secp256r1", "P-384", "secp384r1", "P-521", "secp521r1");

    /**
     * One verification key.
     *
     * @param kid its id, or empty
     * @param type {@code RSA} or {@code EC}
     * @param curve the JWK curve name of an EC key ({@code P-256}...), or empty
     * @param algorithm the one algorithm it is for, or empty for any of its type
     * @param key the public key
     */
    public record Key(
            Optional<String> kid, String type, Optional<String> curve, Optional<String> algorithm, PublicKey key) {}

    /** An empty set: verifies nothing. */
    public static final JsonWebKeySet EMPTY = new JsonWebKeySet(List.of());

    private final List<Key> keys;

    private JsonWebKeySet(List<Key> keys) {
        this.keys = List.copyOf(keys);
    }

    /** The keys read. */
    public List<Key> keys() {
        return keys;
    }

    /** Whether a key has this id. */
    public boolean hasKid(String kid) {
        return keys.stream().anyMatch(k -> k.kid().filter(kid::equals).isPresent());
    }

    /**
     * Reads a key set.
     *
     * @throws IllegalArgumentException when {@code json} is not a JSON object with a {@code keys}
     *     array
     */
    public static JsonWebKeySet parse(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("the JWKS is not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject() || !root.path("keys").isArray()) {
            throw new IllegalArgumentException("the JWKS is not a JSON object with a \"keys\" array");
        }
        List<Key> keys = new ArrayList<>();
        for (JsonNode jwk : root.path("keys").values()) {
            try {
                read(jwk).ifPresent(keys::add);
            } catch (IllegalArgumentException | GeneralSecurityException e) {
                log.debug("Leaving out a JWK that cannot be read: {}", e.getMessage());
            }
        }
        return new JsonWebKeySet(keys);
    }

    private static Optional<Key> read(JsonNode jwk) throws GeneralSecurityException {
        if (!jwk.isObject()) {
            throw new IllegalArgumentException("a key is not a JSON object");
        }
        Optional<String> use = text(jwk, "use");
        if (use.isPresent() && !use.get().equals("sig")) {
            return Optional.empty();
        }
        String type = text(jwk, "kty").orElseThrow(() -> new IllegalArgumentException("a key has no kty"));
        Optional<String> kid = text(jwk, "kid");
        Optional<String> alg = text(jwk, "alg");
        switch (type) {
            case "RSA" -> {
                BigInteger modulus = unsigned(jwk, "n");
                if (modulus.bitLength() < MIN_RSA_BITS) {
                    throw new IllegalArgumentException(
                            "RSA key " + kid.orElse("") + " is under " + MIN_RSA_BITS + " bits");
                }
                PublicKey key =
                        KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(modulus, unsigned(jwk, "e")));
                return Optional.of(new Key(kid, type, Optional.empty(), alg, key));
            }
            case "EC" -> {
                String crv = text(jwk, "crv").orElseThrow(() -> new IllegalArgumentException("an EC key has no crv"));
                String jdkCurve = CURVES.get(crv);
                if (jdkCurve == null) {
                    throw new IllegalArgumentException("EC curve " + crv + " is not one of " + CURVES.keySet());
                }
                AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
                parameters.init(new ECGenParameterSpec(jdkCurve));
                ECParameterSpec spec = parameters.getParameterSpec(ECParameterSpec.class);
                ECPoint point = new ECPoint(unsigned(jwk, "x"), unsigned(jwk, "y"));
                PublicKey key = KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(point, spec));
                return Optional.of(new Key(kid, type, Optional.of(crv), alg, key));
            }
            default -> {
                log.debug("Leaving out JWK {} of type {}", kid.orElse(""), type);
                return Optional.empty();
            }
        }
    }

    private static Optional<String> text(JsonNode node, String member) {
        JsonNode value = node.get(member);
        return value != null && value.isString() ? Optional.of(value.stringValue()) : Optional.empty();
    }

    private static BigInteger unsigned(JsonNode jwk, String member) {
        String value = text(jwk, member).orElseThrow(() -> new IllegalArgumentException("a key has no " + member));
        return new BigInteger(1, Base64.getUrlDecoder().decode(value));
    }
}
