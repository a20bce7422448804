package io.tributary.gateway.table;

/**
 * A slice of the key digests' space that one scan window of the table covers: the digests whose top
 * {@code depth} bits (of {@link KeyDigest#high}) equal {@code index}. Depth 0 is every key. The
 * windows a partition's scans go through are consecutive and never overlap, so each key is in
 * exactly one of them: {@link #split} halves a window in place (its first half), {@link #next} moves
 * past it and merges back into a coarser window when the next one starts one.
 *
 * @param depth how many top bits select the window, 0 to {@link #MAX_DEPTH}
 * @param index the value of those bits, 0 to {@code 2^depth - 1}; {@code 2^depth} is the end
 */
public record HashWindow(int depth, long index) {

    /** The finest split: windows of 2^2 digests' prefixes would still be over a billion keys each. */
    public static final int MAX_DEPTH = 62;

    public HashWindow {
        if (depth < 0 || depth > MAX_DEPTH || index < 0 || index > (1L << depth)) {
            throw new IllegalArgumentException("no such window: depth " + depth + ", index " + index);
        }
    }

    /** Every key. */
    public static HashWindow all() {
        return new HashWindow(0, 0);
    }

    /** Whether {@code d} is in this window. */
    public boolean contains(KeyDigest d) {
        return depth == 0 || (d.high() >>> (64 - depth)) == index;
    }

    /** Whether every window was covered (this one is past the end). */
    public boolean isEnd() {
        return index == 1L << depth;
    }

    /** The first half of this window. */
    public HashWindow split() {
        if (depth == MAX_DEPTH) {
            throw new IllegalStateException("a window cannot be split further");
        }
        return new HashWindow(depth + 1, index * 2);
    }

    /** The window after this one, as coarse as it can be. */
    public HashWindow next() {
        int d = depth;
        long i = index + 1;
        while (d > 0 && i % 2 == 0) {
            i /= 2;
            d--;
        }
        return new HashWindow(d, i);
    }
}
