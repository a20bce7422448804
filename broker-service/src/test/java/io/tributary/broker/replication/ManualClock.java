package io.tributary.broker.replication;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock tests move by hand. */
final class ManualClock implements InstantSource {
    private volatile Instant now;

    ManualClock(long epochMs) {
        this.now = Instant.ofEpochMilli(epochMs);
    }

    @Override
    public Instant instant() {
        return now;
    }

    void advance(Duration duration) {
        now = now.plus(duration);
    }
}
