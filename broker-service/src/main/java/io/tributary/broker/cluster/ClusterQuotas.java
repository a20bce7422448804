package io.tributary.broker.cluster;

import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaFilter;
import io.tributary.common.security.quota.QuotaKey;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The client quotas the coordinators store, as a broker's image holds them: each entity's values by
 * key, in the coordinators' order. Read by DescribeClientQuotas and by quota enforcement.
 *
 * @param byEntity every entity's values (copied; unmodifiable)
 */
public record ClusterQuotas(Map<QuotaEntity, Map<QuotaKey, Double>> byEntity) {

    /** No quota. */
    public static final ClusterQuotas EMPTY = new ClusterQuotas(Map.of());

    public ClusterQuotas {
        Map<QuotaEntity, Map<QuotaKey, Double>> copy = new LinkedHashMap<>();
        byEntity.forEach((e, v) -> copy.put(e, v.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(v))));
        byEntity = Collections.unmodifiableMap(copy);
    }

    /** The value stored for exactly this entity and key. */
    public Optional<Double> value(QuotaEntity entity, QuotaKey key) {
        return Optional.ofNullable(byEntity.getOrDefault(entity, Map.of()).get(key));
    }

    /** The entities {@code filter} matches, with their values, in this set's order. */
    public Map<QuotaEntity, Map<QuotaKey, Double>> matching(QuotaFilter filter) {
        Map<QuotaEntity, Map<QuotaKey, Double>> out = new LinkedHashMap<>();
        byEntity.forEach((e, v) -> {
            if (filter.matches(e)) {
                out.put(e, v);
            }
        });
        return out;
    }

    @Override
    public String toString() {
        return "ClusterQuotas[" + byEntity.size() + " entities]";
    }
}
