package io.tributary.coordinator.liveness;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock that moves only when a test says so. */
final class MutableClock implements InstantSource {

    private Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public Instant instant() {
        return now;
    }

    void advance(Duration d) {
        now = now.plus(d);
    }
}
