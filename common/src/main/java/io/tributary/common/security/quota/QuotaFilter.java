package io.tributary.common.security.quota;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * DescribeClientQuotas' filter, with Kafka 4.4's semantics: each component names an entity type
 * and matches an exact name, the default, or any name ("specified": any entity that names the type,
 * the default too); an entity matches when every component does, and, when {@code strict}, names no
 * other type. No component matches every entity, unless strict (then none).
 *
 * <p>{@link #parse} refuses what Kafka refuses, with its error and message.
 */
public final class QuotaFilter {

    /** Kafka's match types on the wire. */
    public static final byte MATCH_EXACT = 0;

    public static final byte MATCH_DEFAULT = 1;
    public static final byte MATCH_SPECIFIED = 2;

    /** One component as the request carries it: the type's wire name, the match type, the name or null. */
    public record Component(String entityType, byte matchType, String match) {}

    /** A filter Kafka refuses: {@code unsupported} is Kafka's UNSUPPORTED_VERSION, else INVALID_REQUEST. */
    public record Refusal(Error error, String message) {}

    /** The two errors Kafka answers a bad filter with. */
    public enum Error {
        INVALID_REQUEST,
        UNSUPPORTED_VERSION
    }

    /** A parsed filter or why it was refused. */
    public record Parsed(Optional<QuotaFilter> filter, Optional<Refusal> refusal) {}

    private final Map<QuotaEntityType, Optional<String>> exact;
    private final Set<QuotaEntityType> specified;
    private final boolean strict;

    private QuotaFilter(Map<QuotaEntityType, Optional<String>> exact, Set<QuotaEntityType> specified, boolean strict) {
        this.exact = exact;
        this.specified = specified;
        this.strict = strict;
    }

    /** The filter of a request's components, or Kafka's refusal of them. */
    public static Parsed parse(List<Component> components, boolean strict) {
        Map<QuotaEntityType, Optional<String>> exact = new EnumMap<>(QuotaEntityType.class);
        Set<QuotaEntityType> specified = EnumSet.noneOf(QuotaEntityType.class);
        for (Component c : components) {
            String typeName = Objects.requireNonNullElse(c.entityType(), "");
            if (typeName.isEmpty()) {
                return refused(Error.INVALID_REQUEST, "Invalid empty entity type.");
            }
            Optional<QuotaEntityType> type = QuotaEntityType.fromWireName(typeName);
            if (type.isPresent() && (exact.containsKey(type.get()) || specified.contains(type.get()))) {
                return refused(
                        Error.INVALID_REQUEST,
                        "Entity type " + typeName + " cannot appear more than once in the filter.");
            }
            if (type.isEmpty()) {
                return refused(Error.UNSUPPORTED_VERSION, "Unsupported entity type " + typeName);
            }
            switch (c.matchType()) {
                case MATCH_EXACT -> {
                    if (c.match() == null) {
                        return refused(
                                Error.INVALID_REQUEST,
                                "Request specified MATCH_TYPE_EXACT, but set match string to null.");
                    }
                    exact.put(type.get(), Optional.of(c.match()));
                }
                case MATCH_DEFAULT -> {
                    if (c.match() != null) {
                        return refused(
                                Error.INVALID_REQUEST,
                                "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
                    }
                    exact.put(type.get(), Optional.empty());
                }
                case MATCH_SPECIFIED -> {
                    if (c.match() != null) {
                        return refused(
                                Error.INVALID_REQUEST,
                                "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
                    }
                    specified.add(type.get());
                }
                default -> {
                    return refused(Error.INVALID_REQUEST, "Unknown match type " + c.matchType());
                }
            }
        }
        boolean ip = exact.containsKey(QuotaEntityType.IP) || specified.contains(QuotaEntityType.IP);
        boolean other = exact.size() + specified.size() > (ip ? 1 : 0);
        if (ip && other) {
            return refused(
                    Error.INVALID_REQUEST,
                    "Invalid entity filter component combination. IP filter component should not be used with"
                            + " user or clientId filter component.");
        }
        return new Parsed(Optional.of(new QuotaFilter(exact, specified, strict)), Optional.empty());
    }

    private static Parsed refused(Error error, String message) {
        return new Parsed(Optional.empty(), Optional.of(new Refusal(error, message)));
    }

    /** Whether {@code entity} is one this filter describes. */
    public boolean matches(QuotaEntity entity) {
        if (exact.isEmpty() && specified.isEmpty()) {
            return !strict;
        }
        if (strict && entity.parts().size() != exact.size() + specified.size()) {
            return false;
        }
        for (var e : exact.entrySet()) {
            if (!e.getValue().equals(entity.parts().get(e.getKey()))) {
                return false;
            }
        }
        for (QuotaEntityType t : specified) {
            if (!entity.parts().containsKey(t)) {
                return false;
            }
        }
        return true;
    }
}
