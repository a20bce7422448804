package io.tributary.broker.quota;

import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * How a quota bounds the clients it keeps state for: once at its bound, the state used longest ago
 * is forgotten before a new one is kept (Kafka forgets a client's sensors after an hour idle).
 *
 * <p>Thread-safety: each state is read under its own lock, as the quotas update it.
 */
final class IdleEviction {

    private IdleEviction() {}

    /**
     * The state kept for {@code key}, made by {@code create} when there is none; the idlest is
     * forgotten first when {@code states} holds {@code max} already.
     */
    static <K, V> V stateOf(Map<K, V> states, K key, int max, ToLongFunction<V> lastUsedMs, Supplier<V> create) {
        V existing = states.get(key);
        if (existing != null) {
            return existing;
        }
        if (states.size() >= max) {
            forgetIdlest(states, lastUsedMs);
        }
        return states.computeIfAbsent(key, k -> create.get());
    }

    /** Removes from {@code states} the one whose {@code lastUsedMs} is oldest. */
    static <K, V> void forgetIdlest(Map<K, V> states, ToLongFunction<V> lastUsedMs) {
        K idlest = null;
        long oldest = Long.MAX_VALUE;
        for (var e : states.entrySet()) {
            long last;
            synchronized (e.getValue()) {
                last = lastUsedMs.applyAsLong(e.getValue());
            }
            if (last < oldest) {
                oldest = last;
                idlest = e.getKey();
            }
        }
        if (idlest != null) {
            states.remove(idlest);
        }
    }
}
