package io.tributary.coordinator.group;

import java.util.Arrays;
import java.util.Objects;

/**
 * One protocol a classic member supports (e.g. the consumer protocol's assignor {@code range}), with
 * its opaque metadata (for {@code consumer}: the subscription): a classic group's member's, or a
 * consumer group's classic member's ({@link ClassicMemberMetadata}).
 */
public record ClassicProtocol(String name, byte[] metadata) {

    public ClassicProtocol {
        Objects.requireNonNull(name, "name");
        metadata = metadata.clone();
    }

    @Override
    public byte[] metadata() {
        return metadata.clone();
    }

    /** The metadata's length, without a copy. */
    public int size() {
        return metadata.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClassicProtocol p && name.equals(p.name) && Arrays.equals(metadata, p.metadata);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(metadata);
    }

    @Override
    public String toString() {
        return name + "(" + metadata.length + "B)";
    }
}
