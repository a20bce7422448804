package io.tributary.coordinator.kafka;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a classic JoinGroup or SyncGroup handler waits for its answer: the connection's virtual
 * thread parks on the state machine's future. The state machine answers every wait by the group's
 * rebalance timeout at the latest (its timers run every {@code groups.tick-interval}), so the bound
 * here ({@code timeoutMs} plus {@link #MARGIN_MS}) is only a backstop; hitting it answers {@code
 * ifTimedOut} (REBALANCE_IN_PROGRESS: the member joins again).
 */
final class ClassicWaits {

    /** Added to the rebalance timeout: the timers' lateness and a tick that failed. */
    static final long MARGIN_MS = 10_000;

    private ClassicWaits() {}

    static <T> T await(CompletableFuture<T> answer, long timeoutMs, T ifTimedOut) {
        try {
            return answer.get(timeoutMs + MARGIN_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return ifTimedOut;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ifTimedOut;
        } catch (ExecutionException e) {
            throw new IllegalStateException("a classic group answer failed", e.getCause());
        }
    }
}
