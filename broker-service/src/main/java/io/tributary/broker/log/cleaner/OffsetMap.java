package io.tributary.broker.log.cleaner;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The cleaner's map from a record key to the offset of its latest record, in a fixed memory budget
 * ({@code log.cleaner.dedupe.buffer.size}): keys are not stored, only their 16-byte MD5 digest, so
 * any key costs 24 bytes (digest + offset) whatever its length.
 *
 * <p>Layout: three {@code long[]} of {@code slots} entries (the digest's high and low 64 bits and
 * the offset; offset {@code -1} marks a free slot), so {@code slots = memoryBytes / 24} rounded down
 * to a prime. Open addressing with double hashing: the first probe is the digest's high half modulo
 * {@code slots}, the step {@code 1 + (low half modulo (slots - 1))}, which a prime {@code slots}
 * makes visit every slot. At most {@code loadFactor * slots} keys are put ({@link #maxEntries()}):
 * an unsuccessful probe then costs about {@code 1 / (1 - loadFactor)} reads (10 at Kafka's default
 * load factor 0.9). The cleaner stops filling the map at a batch boundary before it would overflow
 * and cleans what it mapped; the rest of the log is the next pass.
 *
 * <p>Two keys with the same digest would count as one: with 128 bits, a collision is far less
 * likely than a disk error (Kafka's cleaner makes the same trade).
 *
 * <p>Not thread-safe: one map per cleaner thread, reused from pass to pass ({@link #clear()}).
 */
public final class OffsetMap {

    /** Bytes one slot costs: a 16-byte digest and an 8-byte offset. */
    public static final int SLOT_BYTES = 24;

    private static final long FREE = -1;

    private final int slots;
    private final int maxEntries;
    private final long[] hashHigh;
    private final long[] hashLow;
    private final long[] offsets;
    private final MessageDigest digest;
    private int size;
    /** The digest of the key last probed (scratch state of {@link #probe}). */
    private long probedHigh;

    private long probedLow;

    /**
     * A map using at most {@code memoryBytes} of heap for its slots.
     *
     * @param loadFactor the fraction of slots that may be filled, in (0, 1)
     */
    public OffsetMap(long memoryBytes, double loadFactor) {
        if (!(loadFactor > 0 && loadFactor < 1)) {
            throw new IllegalArgumentException("load factor must be in (0, 1): " + loadFactor);
        }
        long wanted = memoryBytes / SLOT_BYTES;
        if (wanted < 3) {
            throw new IllegalArgumentException("a dedupe buffer of " + memoryBytes + " bytes holds fewer than 3 slots");
        }
        this.slots = largestPrimeAtMost((int) Math.min(wanted, Integer.MAX_VALUE - 8));
        this.maxEntries = Math.min(slots - 1, Math.max(1, (int) (slots * loadFactor)));
        this.hashHigh = new long[slots];
        this.hashLow = new long[slots];
        this.offsets = new long[slots];
        Arrays.fill(offsets, FREE);
        try {
            this.digest = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }

    /** Records {@code offset} as the latest offset of {@code key}. */
    public void put(ByteBuffer key, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        int slot = probe(key);
        if (offsets[slot] == FREE) {
            if (size >= maxEntries) {
                throw new IllegalStateException("the offset map is full (" + maxEntries + " keys)");
            }
            hashHigh[slot] = probedHigh;
            hashLow[slot] = probedLow;
            size++;
        }
        offsets[slot] = offset;
    }

    /** The latest offset put for {@code key}, or -1 if none. */
    public long get(ByteBuffer key) {
        int slot = probe(key);
        return offsets[slot] == FREE ? -1 : offsets[slot];
    }

    /**
     * The slot holding {@code key}'s digest, or the free slot where it would go; leaves the digest
     * in {@link #probedHigh} and {@link #probedLow}. A free slot always exists: at most {@code
     * maxEntries < slots} are filled.
     */
    private int probe(ByteBuffer key) {
        digest.reset();
        digest.update(key.duplicate());
        ByteBuffer hash = ByteBuffer.wrap(digest.digest());
        probedHigh = hash.getLong(0);
        probedLow = hash.getLong(8);
        int slot = (int) Math.floorMod(probedHigh, (long) slots);
        int step = 1 + (int) Math.floorMod(probedLow, (long) slots - 1);
        while (offsets[slot] != FREE && (hashHigh[slot] != probedHigh || hashLow[slot] != probedLow)) {
            long next = (long) slot + step;
            slot = (int) (next >= slots ? next - slots : next);
        }
        return slot;
    }

    /** Distinct keys put since the last {@link #clear()}. */
    public int size() {
        return size;
    }

    /** How many distinct keys the map takes before it is full. */
    public int maxEntries() {
        return maxEntries;
    }

    public int slots() {
        return slots;
    }

    /** Whether {@code keys} more distinct keys certainly fit. */
    public boolean fits(long keys) {
        return size + keys <= maxEntries;
    }

    public void clear() {
        Arrays.fill(offsets, FREE);
        size = 0;
    }

    static int largestPrimeAtMost(int n) {
        for (int candidate = n; candidate >= 2; candidate--) {
            if (isPrime(candidate)) {
                return candidate;
            }
        }
        throw new IllegalArgumentException("no prime at most " + n);
    }

    private static boolean isPrime(int n) {
        if (n < 4) {
            return n >= 2;
        }
        if (n % 2 == 0) {
            return false;
        }
        for (int d = 3; (long) d * d <= n; d += 2) {
            if (n % d == 0) {
                return false;
            }
        }
        return true;
    }
}
