package io.tributary.coordinator.group;

import java.util.Optional;
import java.util.Set;

/** The server assignors a group may name in {@code ServerAssignor}: {@code uniform} and {@code range}. */
public final class Assignors {

    /** Every assignor name, as clients spell them. */
    public static final Set<String> NAMES = Set.of(UniformAssignor.NAME, RangeAssignor.NAME);

    private static final UniformAssignor UNIFORM = new UniformAssignor();
    private static final RangeAssignor RANGE = new RangeAssignor();

    private Assignors() {}

    /** The assignor with this name, if there is one. */
    public static Optional<Assignor> byName(String name) {
        return switch (name) {
            case UniformAssignor.NAME -> Optional.of(UNIFORM);
            case RangeAssignor.NAME -> Optional.of(RANGE);
            default -> Optional.empty();
        };
    }
}
