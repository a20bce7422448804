package io.tributary.common.security.quota;

import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * The entity a client quota belongs to, as Kafka's {@code ClientQuotaEntity}: for each {@link
 * QuotaEntityType} it names, a name or the default ({@link Optional#empty()}, Kafka's null name,
 * {@code <default>} in {@code kafka-configs.sh}). Valid entities ({@link #validate}) name a user, a
 * client id or both, or an IP alone.
 *
 * @param parts the types named, each with its name or the default (copied, in type order)
 */
public record QuotaEntity(Map<QuotaEntityType, Optional<String>> parts) {

    /**
     * The canonical order, the one the coordinators store entities in: type by type (user, client
     * id, ip), absent before the default before a name, names by {@link String#compareTo}.
     */
    public static final Comparator<QuotaEntity> ORDER = (a, b) -> {
        for (QuotaEntityType t : QuotaEntityType.values()) {
            int c = comparePart(a.parts.get(t), b.parts.get(t));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    };

    public QuotaEntity {
        Objects.requireNonNull(parts, "parts");
        EnumMap<QuotaEntityType, Optional<String>> copy = new EnumMap<>(QuotaEntityType.class);
        parts.forEach((type, name) -> copy.put(Objects.requireNonNull(type), Objects.requireNonNull(name)));
        parts = java.util.Collections.unmodifiableMap(copy);
    }

    /** A user's entity; an empty name is the default user. */
    public static QuotaEntity user(Optional<String> user) {
        return new QuotaEntity(Map.of(QuotaEntityType.USER, user));
    }

    /** A client id's entity; an empty name is the default client id. */
    public static QuotaEntity clientId(Optional<String> clientId) {
        return new QuotaEntity(Map.of(QuotaEntityType.CLIENT_ID, clientId));
    }

    /** A (user, client id) entity; an empty name is that type's default. */
    public static QuotaEntity userAndClientId(Optional<String> user, Optional<String> clientId) {
        return new QuotaEntity(Map.of(QuotaEntityType.USER, user, QuotaEntityType.CLIENT_ID, clientId));
    }

    /** This entity's name for {@code type}: empty when it does not name the type. */
    public Optional<Optional<String>> part(QuotaEntityType type) {
        return Optional.ofNullable(parts.get(type));
    }

    /**
     * Why Kafka 4.4's controller refuses this entity ({@code INVALID_REQUEST}), if it does: no type,
     * an empty name, or an IP beside a user or client id.
     */
    public Optional<String> validate() {
        if (parts.isEmpty()) {
            return Optional.of("Invalid empty client quota entity");
        }
        for (var e : parts.entrySet()) {
            if (e.getValue().filter(String::isEmpty).isPresent()) {
                return Optional.of("Empty " + e.getKey().wireName() + " not supported");
            }
        }
        if (parts.containsKey(QuotaEntityType.IP) && parts.size() > 1) {
            return Optional.of(
                    "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId");
        }
        return Optional.empty();
    }

    private static int comparePart(Optional<String> a, Optional<String> b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        if (a.isEmpty() || b.isEmpty()) {
            return a.isEmpty() ? (b.isEmpty() ? 0 : -1) : 1;
        }
        return a.get().compareTo(b.get());
    }

    /** As Kafka's: {@code ClientQuotaEntity(entries={user=alice, client-id=null})}. */
    @Override
    public String toString() {
        StringJoiner j = new StringJoiner(", ", "ClientQuotaEntity(entries={", "})");
        parts.forEach((t, n) -> j.add(t.wireName() + "=" + n.orElse(null)));
        return j.toString();
    }
}
