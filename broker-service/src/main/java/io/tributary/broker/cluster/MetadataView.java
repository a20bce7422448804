package io.tributary.broker.cluster;

import java.time.Duration;

/** The broker's current cluster image, for request handlers. Thread-safe. */
public interface MetadataView {

    /** The newest image this broker applied. */
    ClusterImage image();

    /**
     * Waits (parking the caller, no spinning) until the image reaches {@code version} or {@code
     * timeout} passes; used after a control-plane write so that the writer's next Metadata
     * request sees its own write.
     *
     * @return whether the image reached the version
     */
    boolean awaitVersion(long version, Duration timeout) throws InterruptedException;

    /** This broker's id. */
    int brokerId();

    /**
     * Whether this broker is registered with the coordinators and not fenced: only then does it
     * act as a leader.
     */
    boolean isActive();
}
