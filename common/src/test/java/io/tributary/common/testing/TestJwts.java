package io.tributary.common.testing;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * Signed JWTs and their JSON Web Key Sets for OAUTHBEARER tests, made with the JDK: a {@link
 * Signer} holds a fresh key pair for one JWS algorithm and a key id, publishes its public key as a
 * JWK, and signs tokens; {@link #claims} gives the usual claim set to start from.
 */
public final class TestJwts {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private TestJwts() {}

    /** A key pair for {@code alg} (RS256/384/512, PS256/384/512, ES256/384/512) with id {@code kid}. */
    public record Signer(String alg, String kid, KeyPair keys) {

        public static Signer create(String alg, String kid) {
            try {
                KeyPairGenerator generator;
                if (alg.startsWith("ES")) {
                    generator = KeyPairGenerator.getInstance("EC");
                    generator.initialize(new ECGenParameterSpec(jdkCurve(alg)));
                } else {
                    generator = KeyPairGenerator.getInstance("RSA");
                    generator.initialize(2048);
                }
                return new Signer(alg, kid, generator.generateKeyPair());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The public key as a JWK (with {@code kid}, {@code use=sig} and {@code alg}). */
        public Map<String, Object> jwk() {
            Map<String, Object> jwk = new LinkedHashMap<>();
            if (keys.getPublic() instanceof RSAPublicKey rsa) {
                jwk.put("kty", "RSA");
                jwk.put("n", unsigned(rsa.getModulus(), 0));
                jwk.put("e", unsigned(rsa.getPublicExponent(), 0));
            } else {
                ECPublicKey ec = (ECPublicKey) keys.getPublic();
                int size = (ec.getParams().getCurve().getField().getFieldSize() + 7) / 8;
                jwk.put("kty", "EC");
                jwk.put("crv", jwkCurve(alg));
                jwk.put("x", unsigned(ec.getW().getAffineX(), size));
                jwk.put("y", unsigned(ec.getW().getAffineY(), size));
            }
            jwk.put("kid", kid);
            jwk.put("use", "sig");
            jwk.put("alg", alg);
            return jwk;
        }

        /** A token with header {@code {"alg":alg,"kid":kid,"typ":"JWT"}} and {@code claims}. */
        public String sign(Map<String, Object> claims) {
            Map<String, Object> header = new LinkedHashMap<>();
            header.put("alg", alg);
            header.put("kid", kid);
            header.put("typ", "JWT");
            return sign(header, claims);
        }

        /** A token with the given header and claims, signed with this key. */
        public String sign(Map<String, Object> header, Map<String, Object> claims) {
            String signed = encode(header) + "." + encode(claims);
            try {
                Signature signature = signature(alg);
                signature.initSign(keys.getPrivate());
                signature.update(signed.getBytes(StandardCharsets.US_ASCII));
                return signed + "." + BASE64URL.encodeToString(signature.sign());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** A JWKS holding the signers' public keys. */
    public static String jwks(Signer... signers) {
        List<Map<String, Object>> keys = new ArrayList<>();
        Arrays.stream(signers).forEach(s -> keys.add(s.jwk()));
        return JSON.writeValueAsString(Map.of("keys", keys));
    }

    /**
     * Claims with {@code sub}, {@code iss}, {@code aud} (a string), {@code iat} one minute before
     * {@code now} and {@code exp} an hour after it; a mutable map to change.
     */
    public static Map<String, Object> claims(String sub, String iss, String aud, Instant now) {
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("sub", sub);
        claims.put("iss", iss);
        claims.put("aud", aud);
        claims.put("iat", now.getEpochSecond() - 60);
        claims.put("exp", now.getEpochSecond() + 3600);
        return claims;
    }

    /** {@code value} as unpadded base64url JSON. */
    public static String encode(Map<String, Object> value) {
        return BASE64URL.encodeToString(JSON.writeValueAsString(value).getBytes(StandardCharsets.UTF_8));
    }

    private static Signature signature(String alg) throws GeneralSecurityException {
        String bits = alg.substring(2);
        return switch (alg.substring(0, 2)) {
            case "RS" -> Signature.getInstance("SHA" + bits + "withRSA");
            case "PS" -> {
                Signature pss = Signature.getInstance("RSASSA-PSS");
                MGF1ParameterSpec mgf = new MGF1ParameterSpec("SHA-" + bits);
                pss.setParameter(new PSSParameterSpec("SHA-" + bits, "MGF1", mgf, Integer.parseInt(bits) / 8, 1));
                yield pss;
            }
            case "ES" -> Signature.getInstance("SHA" + bits + "withECDSAinP1363Format");
            default -> throw new IllegalArgumentException("no signer for " + alg);
        };
    }

    private static String jdkCurve(String alg) {
        return switch (alg) {
            case "ES256" -> "secp256r1";
            case "ES384" -> "secp384r1";
            default -> "secp521r1";
        };
    }

    private static String jwkCurve(String alg) {
        return switch (alg) {
            case "ES256" -> "P-256";
            case "ES384" -> "P-384";
            default -> "P-521";
        };
    }

    /** An unsigned big-endian integer, left-padded with zeros to {@code size} bytes when positive. */
    private static String unsigned(BigInteger value, int size) {
        byte[] bytes = value.toByteArray();
        if (bytes.length > 1 && bytes[0] == 0) {
            bytes = Arrays.copyOfRange(bytes, 1, bytes.length);
        }
        if (bytes.length < size) {
            byte[] padded = new byte[size];
            System.arraycopy(bytes, 0, padded, size - bytes.length, bytes.length);
            bytes = padded;
        }
        return BASE64URL.encodeToString(bytes);
    }
}
