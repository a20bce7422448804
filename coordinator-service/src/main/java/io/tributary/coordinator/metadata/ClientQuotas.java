package io.tributary.coordinator.metadata;

import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaEntityType;
import io.tributary.common.security.quota.QuotaKey;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The client quotas of a {@link MetadataImage} ({@link MetadataCommand.AlterClientQuotas}): for
 * each valid {@link QuotaEntity}, in {@link QuotaEntity#ORDER}, its quota values by key (at least
 * one: an entity whose last value is removed is gone, as in Kafka). Values are positive and finite.
 *
 * <p>A value of its own, like {@link AclSet}: images whose command did not touch quotas share it;
 * a change copies the map.
 *
 * <p>Thread-safety: immutable; safe to share.
 */
public final class ClientQuotas {

    /** No quota. */
    public static final ClientQuotas EMPTY = new ClientQuotas(new TreeMap<>(QuotaEntity.ORDER));

    private final NavigableMap<QuotaEntity, Map<QuotaKey, Double>> quotas;

    private ClientQuotas(NavigableMap<QuotaEntity, Map<QuotaKey, Double>> quotas) {
        this.quotas = Collections.unmodifiableNavigableMap(quotas);
    }

    /**
     * The quotas of {@code byEntity} (a snapshot being read, tests).
     *
     * @throws IllegalStateException if an entity is not valid, has no value, or a value is not
     *     positive and finite, or a key does not fit the entity
     */
    public static ClientQuotas of(Map<QuotaEntity, Map<QuotaKey, Double>> byEntity) {
        NavigableMap<QuotaEntity, Map<QuotaKey, Double>> map = new TreeMap<>(QuotaEntity.ORDER);
        byEntity.forEach((entity, values) -> {
            check(entity, values).ifPresent(reason -> {
                throw new IllegalStateException("client quotas: " + reason);
            });
            map.put(entity, Collections.unmodifiableMap(new EnumMap<>(values)));
        });
        return new ClientQuotas(map);
    }

    private static Optional<String> check(QuotaEntity entity, Map<QuotaKey, Double> values) {
        Optional<String> invalid = entity.validate();
        if (invalid.isPresent()) {
            return invalid.map(r -> r + ": " + entity);
        }
        if (values.isEmpty()) {
            return Optional.of("no value for " + entity);
        }
        boolean ip = entity.part(QuotaEntityType.IP).isPresent();
        for (var e : values.entrySet()) {
            double v = e.getValue();
            if (!Double.isFinite(v) || v <= 0) {
                return Optional.of(e.getKey().wireName() + "=" + v + " for " + entity);
            }
            if (e.getKey().forIpEntities() != ip) {
                return Optional.of(e.getKey().wireName() + " does not apply to " + entity);
            }
        }
        return Optional.empty();
    }

    /** How many entities have a quota. */
    public int size() {
        return quotas.size();
    }

    /** Every entity's values, in {@link QuotaEntity#ORDER} (unmodifiable). */
    public NavigableMap<QuotaEntity, Map<QuotaKey, Double>> asMap() {
        return quotas;
    }

    /**
     * These quotas with {@code changes} applied in order: each sets and removes values of one
     * entity (removing a value not stored is no change); {@code this} when nothing changes.
     *
     * @throws InvalidRequestException if an entity, key or value is not valid
     */
    ClientQuotas with(List<MetadataCommand.QuotaChange> changes) {
        NavigableMap<QuotaEntity, Map<QuotaKey, Double>> next = new TreeMap<>(quotas);
        for (MetadataCommand.QuotaChange change : changes) {
            Map<QuotaKey, Double> values = new EnumMap<>(QuotaKey.class);
            values.putAll(next.getOrDefault(change.entity(), Map.of()));
            change.removed().forEach(values::remove);
            values.putAll(change.set());
            if (values.isEmpty()) {
                next.remove(change.entity());
                continue;
            }
            check(change.entity(), values).ifPresent(reason -> {
                throw new InvalidRequestException("client quotas: " + reason);
            });
            next.put(change.entity(), Collections.unmodifiableMap(values));
        }
        return next.equals(quotas) ? this : new ClientQuotas(next);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClientQuotas other && quotas.equals(other.quotas);
    }

    @Override
    public int hashCode() {
        return Objects.hash(quotas);
    }

    @Override
    public String toString() {
        return "ClientQuotas[" + quotas.size() + " entities]";
    }
}
