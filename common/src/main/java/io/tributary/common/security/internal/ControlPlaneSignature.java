package io.tributary.common.security.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * The signature a broker puts on each control-plane call, and its check on a coordinator.
 *
 * <p>The call carries one header, {@code Authorization}:
 *
 * <pre>
 * Authorization: Tributary-Broker id=3,ts=1764998400000,sig=3q2-7w...
 * </pre>
 *
 * <ul>
 *   <li>{@code id}: the calling broker's id, decimal;
 *   <li>{@code ts}: when the call was signed, milliseconds since the epoch, decimal;
 *   <li>{@code sig}: base64url without padding of {@code HMAC-SHA256(the broker's key, S)}, where
 *       {@code S} is the UTF-8 text of five lines joined by {@code \n} (no line break at the end):
 *       {@value #VERSION}; the method in capitals; the path as sent (percent-encoded as on the
 *       wire), followed by {@code ?} and the query as sent when there is one; {@code ts} as in the
 *       header; base64url without padding of SHA-256 of the body (of no bytes when there is none).
 * </ul>
 *
 * <p>A coordinator accepts a call when the broker's key it derives from the cluster secret gives the
 * same signature (compared in constant time) and {@code ts} is within {@code maxSkew} of its clock.
 * During a rotation of the secret a coordinator may also hold the previous secret: a call signed
 * with a key derived from it is accepted too, and the verifier says which secret matched ({@link
 * Caller#secret}), so that the coordinator knows which secret each broker still uses.
 * What this does not do: hide the call (use TLS for that), or stop a call seen on the network from
 * being sent again within {@code maxSkew} (every control-plane write is idempotent or fenced by
 * epochs and incarnations, so a replay changes nothing or is refused).
 *
 * <p>Thread-safety: immutable.
 */
public final class ControlPlaneSignature {

    /** The header's scheme. */
    public static final String SCHEME = "Tributary-Broker";

    /** The first line of the signed text: changes when the format does. */
    static final String VERSION = "tributary-control-plane-v1";

    /** The longest header value accepted: a few numbers and 43 characters of signature. */
    private static final int MAX_HEADER_LENGTH = 256;

    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private ControlPlaneSignature() {}

    /**
     * The {@code Authorization} header value of one call.
     *
     * @param pathAndQuery the raw path, and {@code ?} and the raw query when there is one
     * @param body the body's bytes; null for none
     */
    public static String sign(BrokerKey key, String method, String pathAndQuery, byte[] body, long nowMillis) {
        String signature = signature(key, method, pathAndQuery, nowMillis, body);
        return SCHEME + " id=" + key.brokerId() + ",ts=" + nowMillis + ",sig=" + signature;
    }

    private static String signature(BrokerKey key, String method, String pathAndQuery, long ts, byte[] body) {
        String text = String.join(
                "\n", VERSION, method, pathAndQuery, Long.toString(ts), BASE64URL.encodeToString(sha256(body)));
        return BASE64URL.encodeToString(key.mac(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static byte[] sha256(byte[] body) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(body == null ? new byte[0] : body);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    /** Which of a coordinator's secrets a call was signed with. */
    public enum SecretGeneration {
        /** The secret the coordinator is configured with ({@code secret-file}). */
        CURRENT,
        /** The secret being rotated out ({@code previous-secret-file}), accepted for verification only. */
        PREVIOUS
    }

    /**
     * The broker that signed a call, and with a key of which secret.
     *
     * @param brokerId the id in the header, proved by the signature
     * @param secret the secret whose derived key made the signature
     */
    public record Caller(int brokerId, SecretGeneration secret) {
        public Caller {
            Objects.requireNonNull(secret, "secret");
        }
    }

    /** A call that does not prove which broker sent it. */
    public static final class Refused extends Exception {
        public Refused(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Checks calls on a coordinator.
     *
     * @param keys the key of a broker id ({@link ClusterSecret#brokerKey}) under the current secret
     * @param previousKeys the key of a broker id under the previous secret, during a rotation;
     *     empty otherwise
     * @param maxSkew how far a call's {@code ts} may be from this clock, either way
     */
    public record Verifier(
            IntFunction<BrokerKey> keys,
            Optional<IntFunction<BrokerKey>> previousKeys,
            Duration maxSkew,
            InstantSource clock) {

        public Verifier {
            Objects.requireNonNull(keys, "keys");
            Objects.requireNonNull(previousKeys, "previousKeys");
            Objects.requireNonNull(clock, "clock");
            if (maxSkew == null || maxSkew.isNegative() || maxSkew.isZero()) {
                throw new IllegalArgumentException("maxSkew must be positive, got " + maxSkew);
            }
        }

        /** A verifier over every broker key of {@code secret}. */
        public static Verifier of(ClusterSecret secret, Duration maxSkew, InstantSource clock) {
            return new Verifier(secret::brokerKey, Optional.empty(), maxSkew, clock);
        }

        /**
         * A verifier over every broker key of {@code current} and, during a rotation, of {@code
         * previous}.
         */
        public static Verifier of(
                ClusterSecret current, Optional<ClusterSecret> previous, Duration maxSkew, InstantSource clock) {
            return new Verifier(
                    current::brokerKey, previous.map(p -> (IntFunction<BrokerKey>) p::brokerKey), maxSkew, clock);
        }

        /**
         * The id of the broker that signed the call.
         *
         * @param authorization the {@code Authorization} header; null when the call has none
         * @throws Refused saying why, for the log and the answer (it names nothing secret)
         */
        public int verify(String authorization, String method, String pathAndQuery, byte[] body) throws Refused {
            return authenticate(authorization, method, pathAndQuery, body).brokerId();
        }

        /**
         * The broker that signed the call and the secret its key derives from: the current one is
         * tried first, then the previous one when there is one.
         *
         * @param authorization the {@code Authorization} header; null when the call has none
         * @throws Refused saying why, for the log and the answer (it names nothing secret)
         */
        public Caller authenticate(String authorization, String method, String pathAndQuery, byte[] body)
                throws Refused {
            if (authorization == null) {
                throw new Refused("the call carries no Authorization header");
            }
            if (authorization.length() > MAX_HEADER_LENGTH || !authorization.startsWith(SCHEME + " ")) {
                throw new Refused("the Authorization header is not " + SCHEME);
            }
            String[] fields = authorization.substring(SCHEME.length() + 1).split(",", -1);
            if (fields.length != 3
                    || !fields[0].startsWith("id=")
                    || !fields[1].startsWith("ts=")
                    || !fields[2].startsWith("sig=")) {
                throw new Refused("the Authorization header is not id=...,ts=...,sig=...");
            }
            int brokerId;
            long ts;
            try {
                brokerId = Integer.parseInt(fields[0].substring(3));
                ts = Long.parseLong(fields[1].substring(3));
            } catch (NumberFormatException e) {
                throw new Refused("the Authorization header's id or ts is not a number");
            }
            if (brokerId < 0) {
                throw new Refused("the Authorization header's id is negative");
            }
            long skew = Math.abs(clock.millis() - ts);
            if (skew > maxSkew.toMillis()) {
                throw new Refused(
                        "the call was signed %d ms away from this coordinator's clock; at most %d are accepted"
                                .formatted(skew, maxSkew.toMillis()));
            }
            byte[] given = fields[2].substring(4).getBytes(StandardCharsets.US_ASCII);
            if (signs(keys, brokerId, method, pathAndQuery, ts, body, given)) {
                return new Caller(brokerId, SecretGeneration.CURRENT);
            }
            if (previousKeys.isPresent()
                    && signs(previousKeys.get(), brokerId, method, pathAndQuery, ts, body, given)) {
                return new Caller(brokerId, SecretGeneration.PREVIOUS);
            }
            throw new Refused("the signature does not match broker " + brokerId + "'s key"
                    + (previousKeys.isPresent() ? " under the current or the previous secret" : ""));
        }

        private static boolean signs(
                IntFunction<BrokerKey> keys,
                int brokerId,
                String method,
                String pathAndQuery,
                long ts,
                byte[] body,
                byte[] given) {
            byte[] expected = signature(keys.apply(brokerId), method, pathAndQuery, ts, body)
                    .getBytes(StandardCharsets.US_ASCII);
            return MessageDigest.isEqual(expected, given);
        }
    }
}
