package io.tributary.broker.quota;

/**
 * A rate measured over sampled windows, with Kafka's semantics (its {@code SampledStat} and {@code
 * Rate}): {@code count} windows of {@code windowMs}; a value lands in the current window, and a new
 * window starts (reusing the oldest) once the current one is {@code windowMs} old; a window older
 * than {@code count × windowMs} counts nothing. The rate is the sum of the live windows divided by
 * the time they span: from the start of the oldest live window to now, but never less than {@code
 * count − 1} whole windows (so a client's first burst is not divided by a few milliseconds).
 *
 * <p>Thread-safety: not thread-safe; {@link ByteRateQuota} guards each instance.
 */
final class RateWindows {

    private final long windowMs;
    private final long[] startMs;
    private final double[] totals;
    private int current;
    private long lastRecordMs;

    RateWindows(int count, long windowMs, long nowMs) {
        this.windowMs = windowMs;
        this.startMs = new long[count];
        this.totals = new double[count];
        for (int i = 0; i < count; i++) {
            startMs[i] = nowMs;
        }
        this.lastRecordMs = nowMs;
    }

    /** Adds {@code value} at {@code nowMs} (a negative value takes back one recorded before). */
    void record(double value, long nowMs) {
        if (nowMs - startMs[current] >= windowMs) {
            current = (current + 1) % startMs.length;
            startMs[current] = nowMs;
            totals[current] = 0;
        }
        totals[current] += value;
        lastRecordMs = Math.max(lastRecordMs, nowMs);
    }

    /** The rate at {@code nowMs}, per second. */
    double ratePerSecond(long nowMs) {
        expire(nowMs);
        double sum = 0;
        for (double t : totals) {
            sum += t;
        }
        return sum / (spanMs(nowMs) / 1000.0);
    }

    /** The time the live windows span at {@code nowMs}, at least {@code count − 1} windows. */
    long spanMs(long nowMs) {
        expire(nowMs);
        long oldest = startMs[0];
        for (long s : startMs) {
            oldest = Math.min(oldest, s);
        }
        long elapsed = nowMs - oldest;
        long fullWindows = elapsed / windowMs;
        long minFull = startMs.length - 1L;
        if (fullWindows < minFull) {
            elapsed += (minFull - fullWindows) * windowMs;
        }
        return elapsed;
    }

    /** When a value was last recorded. */
    long lastRecordMs() {
        return lastRecordMs;
    }

    /** Resets windows older than every window together spans. */
    private void expire(long nowMs) {
        long maxAgeMs = windowMs * startMs.length;
        for (int i = 0; i < startMs.length; i++) {
            if (nowMs - startMs[i] >= maxAgeMs) {
                startMs[i] = nowMs;
                totals[i] = 0;
            }
        }
    }
}
