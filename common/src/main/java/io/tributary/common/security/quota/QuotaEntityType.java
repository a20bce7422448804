package io.tributary.common.security.quota;

import java.util.Optional;

/** The kinds of entity a Kafka client quota can name, by their wire names. */
public enum QuotaEntityType {
    USER("user"),
    CLIENT_ID("client-id"),
    IP("ip");

    private final String wireName;

    QuotaEntityType(String wireName) {
        this.wireName = wireName;
    }

    /** The name on the wire and in {@code kafka-configs.sh}: {@code user}, {@code client-id}, {@code ip}. */
    public String wireName() {
        return wireName;
    }

    /** The type a wire name names; empty for any other. */
    public static Optional<QuotaEntityType> fromWireName(String name) {
        for (QuotaEntityType t : values()) {
            if (t.wireName.equals(name)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
