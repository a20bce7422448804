package io.tributary.gateway.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What makes two requests "the same request" for an idempotency key: SHA-256 over the method, the
 * path, the raw query string, the {@code Content-Type} and {@code Record-Key} headers as sent, and the
 * SHA-256 of the body. Each text part is written as its UTF-8 length (4 bytes, big-endian) and bytes,
 * an absent part as length {@code -1}, so no two different requests share an input. Lowercase hex.
 */
public final class RequestDigest {

    private RequestDigest() {}

    /** The digest of a request; {@code null} for an absent query, content type or record key. */
    public static String of(
            String method, String path, String query, String contentType, String recordKey, byte[] body) {
        MessageDigest d = sha256();
        for (String part : new String[] {method, path, query, contentType, recordKey}) {
            if (part == null) {
                d.update(new byte[] {-1, -1, -1, -1});
            } else {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                d.update(new byte[] {
                    (byte) (bytes.length >>> 24),
                    (byte) (bytes.length >>> 16),
                    (byte) (bytes.length >>> 8),
                    (byte) bytes.length
                });
                d.update(bytes);
            }
        }
        d.update(sha256().digest(body));
        return HexFormat.of().formatHex(d.digest());
    }

    /** The lowercase hex SHA-256 of {@code bytes}. */
    public static String sha256Hex(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
