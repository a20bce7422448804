package io.tributary.coordinator.placement;

import java.util.Objects;
import java.util.Optional;

/**
 * A registered broker (live or fenced) as placement sees it.
 *
 * @param id the broker id
 * @param rack its rack; a broker without one is a failure domain of its own
 */
public record BrokerSlot(int id, Optional<String> rack) {

    public BrokerSlot {
        Objects.requireNonNull(rack, "rack");
    }

    /** The failure domain: the rack, or a name only this broker has. */
    String domain() {
        return rack.orElse("\u0000broker-" + id);
    }
}
