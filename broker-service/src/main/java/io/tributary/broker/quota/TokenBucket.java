package io.tributary.broker.quota;

/**
 * Kafka's token bucket ({@code TokenBucket}, KIP-599) for partition mutations: it holds at most
 * {@code burst = quota × window-count × window-size} tokens, starts full, earns {@code quota} tokens
 * a second up to the burst, and each mutation takes one token per partition; the tokens may go
 * below zero (a request is never cut in two), and while they are below zero the quota is exceeded:
 * {@code −tokens / quota} seconds must pass before it is not.
 *
 * <p>Thread-safety: not thread-safe; {@link ControllerMutationQuota} guards each instance.
 */
final class TokenBucket {

    private final double windowsSeconds;
    private double tokens;
    private long lastMs;
    private double lastQuota;

    /**
     * @param windowsSeconds {@code window-count × window-size} in seconds: the burst is the quota
     *     times this
     */
    TokenBucket(double windowsSeconds, double quota, long nowMs) {
        this.windowsSeconds = windowsSeconds;
        this.tokens = quota * windowsSeconds;
        this.lastMs = nowMs;
        this.lastQuota = quota;
    }

    /** The tokens at {@code nowMs} under {@code quota} (refilled, at most the burst). */
    double tokens(double quota, long nowMs) {
        refill(quota, nowMs);
        return tokens;
    }

    /** Takes {@code permits} tokens at {@code nowMs} (negative gives them back). */
    void take(double permits, double quota, long nowMs) {
        refill(quota, nowMs);
        tokens = Math.min(tokens - permits, quota * windowsSeconds);
    }

    /** When tokens were last taken or measured. */
    long lastMs() {
        return lastMs;
    }

    private void refill(double quota, long nowMs) {
        double burst = quota * windowsSeconds;
        if (nowMs > lastMs) {
            tokens += lastQuota * (nowMs - lastMs) / 1000.0;
            lastMs = nowMs;
        }
        lastQuota = quota;
        tokens = Math.min(tokens, burst);
    }

    /** How long, in ms, until {@code tokens} below zero come back to zero at {@code quota} a second. */
    static long throttleMs(double tokens, double quota) {
        if (tokens >= 0) {
            return 0;
        }
        return Math.min(Integer.MAX_VALUE, Math.round(-tokens / quota * 1000));
    }
}
