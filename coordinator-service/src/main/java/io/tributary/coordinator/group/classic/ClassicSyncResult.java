package io.tributary.coordinator.group.classic;

import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;

/**
 * The answer to a SyncGroup.
 *
 * @param error NONE or the error
 * @param protocolType the group's protocol type (SyncGroup v5), empty on error
 * @param protocolName the generation's protocol (SyncGroup v5), empty on error
 * @param assignment the member's assignment from the leader (opaque bytes, possibly empty)
 */
public record ClassicSyncResult(
        Errors error, Optional<String> protocolType, Optional<String> protocolName, byte[] assignment) {

    public ClassicSyncResult {
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(protocolType, "protocolType");
        Objects.requireNonNull(protocolName, "protocolName");
        assignment = assignment.clone();
    }

    @Override
    public byte[] assignment() {
        return assignment.clone();
    }

    static ClassicSyncResult failed(Errors error) {
        return new ClassicSyncResult(error, Optional.empty(), Optional.empty(), new byte[0]);
    }
}
