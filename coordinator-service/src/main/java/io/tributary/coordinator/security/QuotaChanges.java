package io.tributary.coordinator.security;

import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaEntityType;
import io.tributary.common.security.quota.QuotaKey;
import io.tributary.coordinator.metadata.ClientQuotas;
import io.tributary.coordinator.metadata.MetadataCommand.AlterClientQuotas;
import io.tributary.coordinator.metadata.MetadataCommand.QuotaChange;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's AlterClientQuotas (API 49) as its controller answers it, after the cluster ALTER_CONFIGS
 * check the broker made: each entry's result and the changes to store. Run by the coordinators'
 * leader on its latest image; the accepted changes become one {@link AlterClientQuotas} command (all
 * or none committed); with {@code validate_only} nothing is written.
 *
 * <p>An entry, in Kafka 4.4's order of checks, all {@code INVALID_REQUEST}: a key twice ("Duplicate
 * quota key K not updating quota for this entity E"), an entity already in the request ("Ignoring
 * duplicate entity E"), an entity without parts, a type twice, an unknown type ("Unhandled client
 * quota entity type: T"), an empty name ("Empty T not supported"), an IP beside a user or client id,
 * an IP that is not a literal address (Kafka also resolves host names; Tributary does not look names
 * up); then for each value set: a key the entity does not take ("Invalid configuration key K": IPs
 * take {@code connection_creation_rate}, users and client ids the other four), a value not finite,
 * not above 0, too large for the key's type, or fractional for an integral key. Removing a value not
 * stored is a success. An entry that would give a quota to a new entity past {@code
 * maxQuotaEntities} is {@code POLICY_VIOLATION} (Tributary's bound).
 *
 * <p>Thread-safety: immutable.
 */
public final class QuotaChanges {

    /** One entity part as the request names it: the type's wire name and the name (null: the default). */
    public record Part(String entityType, String name) {}

    /** One op as the request carries it: the key, and the value unless {@code remove}. */
    public record Op(String key, double value, boolean remove) {}

    /** One request entry: its entity's parts and its ops. */
    public record Entry(List<Part> entity, List<Op> ops) {
        public Entry {
            entity = List.copyOf(entity);
            ops = List.copyOf(ops);
        }
    }

    /** One entry's outcome: {@link Errors#NONE} with no message, or an error and its message. */
    public record Outcome(Errors error, String message) {
        public static final Outcome NONE = new Outcome(Errors.NONE, null);

        public Outcome {
            Objects.requireNonNull(error, "error");
        }
    }

    /** The results, in request order, and the command when something is to be stored. */
    public record Plan(List<Outcome> results, Optional<AlterClientQuotas> command) {
        public Plan {
            results = List.copyOf(results);
            Objects.requireNonNull(command, "command");
        }
    }

    private final int maxQuotaEntities;

    public QuotaChanges(int maxQuotaEntities) {
        if (maxQuotaEntities < 1) {
            throw new IllegalArgumentException("maxQuotaEntities must be 1 or more, got " + maxQuotaEntities);
        }
        this.maxQuotaEntities = maxQuotaEntities;
    }

    /** Checks every entry against {@code current}; {@code validateOnly} answers without a command. */
    public Plan plan(ClientQuotas current, List<Entry> entries, boolean validateOnly) {
        List<Outcome> results = new ArrayList<>(entries.size());
        List<QuotaChange> changes = new ArrayList<>();
        Set<String> seenEntities = new HashSet<>();
        int entities = current.size();
        for (Entry entry : entries) {
            String described = describe(entry.entity());
            Optional<String> duplicateKey = duplicateKey(entry.ops());
            if (duplicateKey.isPresent()) {
                results.add(invalid("Duplicate quota key " + duplicateKey.get() + " not updating quota for this entity "
                        + described));
                continue;
            }
            if (!seenEntities.add(described)) {
                results.add(invalid("Ignoring duplicate entity " + described));
                continue;
            }
            Parsed parsed = parseEntity(entry.entity());
            if (parsed.refusal().isPresent()) {
                results.add(invalid(parsed.refusal().get()));
                continue;
            }
            QuotaEntity entity = parsed.entity().orElseThrow();
            Set<QuotaKey> removed = EnumSet.noneOf(QuotaKey.class);
            Map<QuotaKey, Double> set = new EnumMap<>(QuotaKey.class);
            Optional<String> refusal = Optional.empty();
            for (Op op : entry.ops()) {
                Optional<QuotaKey> key = QuotaKey.fromWireName(op.key())
                        .filter(k -> k.forIpEntities()
                                == entity.part(QuotaEntityType.IP).isPresent());
                if (op.remove()) {
                    key.ifPresent(removed::add);
                    continue;
                }
                refusal = checkValue(op, key);
                if (refusal.isPresent()) {
                    break;
                }
                set.put(key.orElseThrow(), op.value());
            }
            if (refusal.isPresent()) {
                results.add(invalid(refusal.get()));
                continue;
            }
            Map<QuotaKey, Double> stored = current.asMap().getOrDefault(entity, Map.of());
            removed.retainAll(stored.keySet());
            set.entrySet().removeIf(e -> e.getValue().equals(stored.get(e.getKey())));
            boolean isNew = stored.isEmpty() && !set.isEmpty();
            if (isNew && entities >= maxQuotaEntities) {
                results.add(new Outcome(
                        Errors.POLICY_VIOLATION,
                        "%d entities have client quotas; the limit is %d (tributary.coordinator.metadata"
                                        .formatted(entities, maxQuotaEntities)
                                + ".max-quota-entities)"));
                continue;
            }
            if (isNew) {
                entities++;
            } else if (!stored.isEmpty() && removed.size() == stored.size() && set.isEmpty()) {
                entities--;
            }
            if (!removed.isEmpty() || !set.isEmpty()) {
                changes.add(new QuotaChange(entity, removed, set));
            }
            results.add(Outcome.NONE);
        }
        Optional<AlterClientQuotas> command =
                validateOnly || changes.isEmpty() ? Optional.empty() : Optional.of(new AlterClientQuotas(changes));
        return new Plan(results, command);
    }

    private record Parsed(Optional<QuotaEntity> entity, Optional<String> refusal) {}

    private static Parsed parseEntity(List<Part> parts) {
        if (parts.isEmpty()) {
            return refused("Invalid empty client quota entity");
        }
        Map<QuotaEntityType, Optional<String>> byType = new EnumMap<>(QuotaEntityType.class);
        Set<String> seen = new HashSet<>();
        for (Part p : parts) {
            if (!seen.add(p.entityType())) {
                return refused("Invalid client quota entity, duplicate entity entry " + p.entityType());
            }
            Optional<QuotaEntityType> type = QuotaEntityType.fromWireName(p.entityType());
            if (type.isEmpty()) {
                return refused("Unhandled client quota entity type: " + p.entityType());
            }
            byType.put(type.get(), Optional.ofNullable(p.name()));
        }
        QuotaEntity entity = new QuotaEntity(byType);
        Optional<String> invalid = entity.validate();
        if (invalid.isPresent()) {
            return refused(invalid.get());
        }
        Optional<String> ip = byType.getOrDefault(QuotaEntityType.IP, Optional.empty());
        if (ip.isPresent() && !isIpLiteral(ip.get())) {
            return refused(ip.get() + " is not a valid IP or resolvable host.");
        }
        return new Parsed(Optional.of(entity), Optional.empty());
    }

    private static Parsed refused(String message) {
        return new Parsed(Optional.empty(), Optional.of(message));
    }

    /** A dotted IPv4 address; anything with a colon is parsed as IPv6 (literals only: no lookup). */
    private static final java.util.regex.Pattern IPV4 =
            java.util.regex.Pattern.compile("(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}");

    private static boolean isIpLiteral(String ip) {
        if (IPV4.matcher(ip).matches()) {
            return true;
        }
        if (!ip.contains(":")) {
            return false;
        }
        try {
            InetAddress.getByName(ip);
            return true;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** Kafka's value checks, in its order; {@code key} is empty when the entity does not take it. */
    private static Optional<String> checkValue(Op op, Optional<QuotaKey> key) {
        if (key.isEmpty()) {
            return Optional.of("Invalid configuration key " + op.key());
        }
        double value = op.value();
        if (!Double.isFinite(value)) {
            return Optional.of("Quota " + op.key() + " must be a finite number");
        }
        if (value <= 0) {
            return Optional.of("Quota " + op.key() + " must be greater than 0");
        }
        return switch (key.get().type()) {
            case DOUBLE -> Optional.empty();
            case INT ->
                value > Integer.MAX_VALUE
                        ? Optional.of("Proposed value for " + op.key() + " is too large for an INT.")
                        : integral(op.key(), value);
            case LONG ->
                value > Long.MAX_VALUE
                        ? Optional.of("Proposed value for " + op.key() + " is too large for a LONG.")
                        : integral(op.key(), value);
        };
    }

    private static Optional<String> integral(String key, double value) {
        return Math.abs(value - Math.rint(value)) > 1e-6
                ? Optional.of(key + " cannot be a fractional value.")
                : Optional.empty();
    }

    private static Optional<String> duplicateKey(List<Op> ops) {
        Set<String> keys = new HashSet<>();
        return ops.stream().map(Op::key).filter(k -> !keys.add(k)).findFirst();
    }

    /** The entity as Kafka's {@code ClientQuotaEntity} prints it. */
    private static String describe(List<Part> parts) {
        Map<String, String> byType = new LinkedHashMap<>();
        parts.forEach(p -> byType.put(p.entityType(), p.name()));
        return "ClientQuotaEntity(entries=" + byType + ")";
    }

    private static Outcome invalid(String message) {
        return new Outcome(Errors.INVALID_REQUEST, message);
    }
}
