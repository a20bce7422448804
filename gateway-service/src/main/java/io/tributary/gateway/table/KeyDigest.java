package io.tributary.gateway.table;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A record key as the table scan remembers it: the first 128 bits of the key's SHA-256, so an entry
 * has a fixed size whatever the key's length. Two keys collide with probability about {@code
 * n^2 / 2^129} for {@code n} keys in one scan window (for a billion keys, about 1 in 10^21): a key
 * that collided with another would be left out of the table. The {@link #high} half also places
 * the key in the scan's hash windows ({@link TableReader}).
 *
 * @param high bits 0 to 63 of the SHA-256 (big-endian)
 * @param low bits 64 to 127
 */
public record KeyDigest(long high, long low) {

    /** The digest of {@code key} (the key's bytes, as Kafka stores them). */
    public static KeyDigest of(byte[] key) {
        byte[] d;
        try {
            d = MessageDigest.getInstance("SHA-256").digest(key);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        return new KeyDigest(longAt(d, 0), longAt(d, 8));
    }

    private static long longAt(byte[] b, int from) {
        long v = 0;
        for (int i = from; i < from + 8; i++) {
            v = (v << 8) | (b[i] & 0xff);
        }
        return v;
    }
}
