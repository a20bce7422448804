package io.tributary.common.security.quota;

import java.util.Optional;

/**
 * The quota keys Kafka 4.4 knows, with the type Kafka checks values against: user and client-id
 * entities take the first four, an IP entity only {@code connection_creation_rate}.
 */
public enum QuotaKey {
    /** Bytes per second a (user, client id) may produce, per broker. */
    PRODUCER_BYTE_RATE("producer_byte_rate", ValueType.LONG),
    /** Bytes per second a (user, client id) may fetch, per broker. */
    CONSUMER_BYTE_RATE("consumer_byte_rate", ValueType.LONG),
    /** Percent of one request handler thread's time a (user, client id) may use, per broker. */
    REQUEST_PERCENTAGE("request_percentage", ValueType.DOUBLE),
    /** Partition mutations per second (create/delete topics, create partitions). */
    CONTROLLER_MUTATION_RATE("controller_mutation_rate", ValueType.DOUBLE),
    /** Connections per second from one IP. */
    CONNECTION_CREATION_RATE("connection_creation_rate", ValueType.INT);

    /** The type Kafka's config definition gives a key: what values it takes. */
    public enum ValueType {
        LONG,
        INT,
        DOUBLE
    }

    private final String wireName;
    private final ValueType type;

    QuotaKey(String wireName, ValueType type) {
        this.wireName = wireName;
        this.type = type;
    }

    public String wireName() {
        return wireName;
    }

    public ValueType type() {
        return type;
    }

    /** Whether an entity with an IP (else one with a user or client id) takes this key. */
    public boolean forIpEntities() {
        return this == CONNECTION_CREATION_RATE;
    }

    /** The key a wire name names; empty for any other. */
    public static Optional<QuotaKey> fromWireName(String name) {
        for (QuotaKey k : values()) {
            if (k.wireName.equals(name)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
