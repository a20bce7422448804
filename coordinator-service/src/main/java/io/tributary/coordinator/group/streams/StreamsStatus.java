package io.tributary.coordinator.group.streams;

import java.util.Objects;

/**
 * A status a streams group member is told in StreamsGroupHeartbeat's {@code Status} (codes as
 * Kafka's {@code StreamsGroupHeartbeatResponse.Status}).
 *
 * @param code what is the matter
 * @param detail the topics or reason, for people
 */
public record StreamsStatus(Code code, String detail) {

    /** The status codes, with their wire values. */
    public enum Code {
        /** The member's topology epoch is below the group's. */
        STALE_TOPOLOGY(0),
        /** Source topics of the topology do not exist: no tasks are assigned. */
        MISSING_SOURCE_TOPICS(1),
        /**
         * Copartitioned topics differ in partition count, an internal topic exists with another
         * count than the topology needs, or a repartition topic's count cannot be derived.
         */
        INCORRECTLY_PARTITIONED_TOPICS(2),
        /** Internal topics are being created: no tasks until they exist. */
        MISSING_INTERNAL_TOPICS(3),
        /** A member asked the whole application to shut down. */
        SHUTDOWN_APPLICATION(4),
        /** A new group's first assignment waits for the initial rebalance delay. */
        ASSIGNMENT_DELAYED(5);

        private final byte wire;

        Code(int wire) {
            this.wire = (byte) wire;
        }

        /** The wire value ({@code StatusCode}). */
        public byte wire() {
            return wire;
        }
    }

    public StreamsStatus {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(detail, "detail");
    }
}
