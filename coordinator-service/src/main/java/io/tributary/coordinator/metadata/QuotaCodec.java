package io.tributary.coordinator.metadata;

import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaEntityType;
import io.tributary.common.security.quota.QuotaKey;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The binary layouts of client quotas, in {@link CommandCodec}'s type 22 ({@code
 * AlterClientQuotas}, format version 9) and {@link ImageCodec}'s quota section (format version 9).
 * Primitive types are {@link Bytes}'s (big-endian; a string is an int32 length and UTF-8; an
 * optional string an int8 0 (absent) or 1 and the string).
 *
 * <pre>
 * quota entity:  int8 part count P (1..3), P x (int8 entity type (1 user, 2 client-id, 3 ip),
 *                  optional string name (absent: the type's default)), types ascending, none twice
 * quota value:   int8 key (1 producer_byte_rate, 2 consumer_byte_rate, 3 request_percentage,
 *                  4 controller_mutation_rate, 5 connection_creation_rate), int64 the value's
 *                  IEEE 754 double bits ({@link Double#doubleToLongBits})
 * quota change (type 22): quota entity, int32 removed count R, R x int8 key,
 *                  int32 set count S, S x quota value
 * quota section (image): int32 entity count E, E x (quota entity, int32 value count V (1..),
 *                  V x quota value (keys ascending)), entities in {@link QuotaEntity#ORDER}
 * </pre>
 *
 * Example: {@code AlterClientQuotas} setting {@code producer_byte_rate=1024} for user {@code u} is
 * {@code 09 16 00 00 00 01 01 01 01 00 00 00 01 75 00 00 00 00 00 00 00 01 01 40 90 00 00 00 00 00
 * 00}. Any other code, a count out of range, a value that is not positive and finite, or an
 * entity Kafka refuses is corrupt.
 *
 * <p>Thread-safety: stateless.
 */
final class QuotaCodec {

    /** The smallest encoded quota value: key and value. */
    static final int MIN_VALUE_BYTES = 1 + 8;

    /** The smallest encoded entity: one part with a default name. */
    static final int MIN_ENTITY_BYTES = 1 + 1 + 1;

    private QuotaCodec() {}

    static void writeEntity(Bytes.Writer w, QuotaEntity entity) {
        w.int8(entity.parts().size());
        entity.parts().forEach((type, name) -> w.int8(type.ordinal() + 1).optionalString(name));
    }

    static QuotaEntity readEntity(Bytes.Reader r) {
        int n = r.int8();
        if (n < 1 || n > QuotaEntityType.values().length) {
            throw r.corrupt("quota entity part count " + n);
        }
        Map<QuotaEntityType, Optional<String>> parts = new LinkedHashMap<>();
        int last = 0;
        for (int i = 0; i < n; i++) {
            int code = r.int8();
            if (code <= last || code > QuotaEntityType.values().length) {
                throw r.corrupt("quota entity type " + code + " out of order or unknown");
            }
            last = code;
            parts.put(QuotaEntityType.values()[code - 1], r.optionalString());
        }
        QuotaEntity entity = new QuotaEntity(parts);
        entity.validate().ifPresent(reason -> {
            throw r.corrupt("quota entity " + entity + ": " + reason);
        });
        return entity;
    }

    static void writeValue(Bytes.Writer w, QuotaKey key, double value) {
        w.int8(key.ordinal() + 1).int64(Double.doubleToLongBits(value));
    }

    private static QuotaKey readKey(Bytes.Reader r) {
        int code = r.int8();
        if (code < 1 || code > QuotaKey.values().length) {
            throw r.corrupt("unknown quota key " + code);
        }
        return QuotaKey.values()[code - 1];
    }

    private static void readValue(Bytes.Reader r, Map<QuotaKey, Double> into) {
        QuotaKey key = readKey(r);
        double value = Double.longBitsToDouble(r.int64());
        if (!Double.isFinite(value) || value <= 0 || into.put(key, value) != null) {
            throw r.corrupt("quota " + key.wireName() + "=" + value + " not positive or twice");
        }
    }

    static void writeChanges(Bytes.Writer w, List<MetadataCommand.QuotaChange> changes) {
        w.int32(changes.size());
        for (MetadataCommand.QuotaChange c : changes) {
            writeEntity(w, c.entity());
            w.int32(c.removed().size());
            c.removed().forEach(k -> w.int8(k.ordinal() + 1));
            w.int32(c.set().size());
            c.set().forEach((k, v) -> writeValue(w, k, v));
        }
    }

    static List<MetadataCommand.QuotaChange> readChanges(Bytes.Reader r) {
        int n = r.count(MIN_ENTITY_BYTES + 4 + 4);
        List<MetadataCommand.QuotaChange> changes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            QuotaEntity entity = readEntity(r);
            int removedCount = r.count(1);
            Set<QuotaKey> removed = EnumSet.noneOf(QuotaKey.class);
            for (int k = 0; k < removedCount; k++) {
                removed.add(readKey(r));
            }
            int setCount = r.count(MIN_VALUE_BYTES);
            Map<QuotaKey, Double> set = new EnumMap<>(QuotaKey.class);
            for (int k = 0; k < setCount; k++) {
                readValue(r, set);
            }
            changes.add(new MetadataCommand.QuotaChange(entity, removed, set));
        }
        return changes;
    }

    static void writeSection(Bytes.Writer w, ClientQuotas quotas) {
        w.int32(quotas.size());
        quotas.asMap().forEach((entity, values) -> {
            writeEntity(w, entity);
            w.int32(values.size());
            values.forEach((k, v) -> writeValue(w, k, v));
        });
    }

    static ClientQuotas readSection(Bytes.Reader r) {
        int n = r.count(MIN_ENTITY_BYTES + 4 + MIN_VALUE_BYTES);
        Map<QuotaEntity, Map<QuotaKey, Double>> byEntity = new LinkedHashMap<>();
        QuotaEntity previous = null;
        for (int i = 0; i < n; i++) {
            QuotaEntity entity = readEntity(r);
            if (previous != null && QuotaEntity.ORDER.compare(previous, entity) >= 0) {
                throw r.corrupt("quota entity " + entity + " out of order or twice");
            }
            previous = entity;
            int count = r.count(MIN_VALUE_BYTES);
            if (count == 0) {
                throw r.corrupt("quota entity " + entity + " without values");
            }
            Map<QuotaKey, Double> values = new EnumMap<>(QuotaKey.class);
            for (int k = 0; k < count; k++) {
                readValue(r, values);
            }
            byEntity.put(entity, values);
        }
        try {
            return ClientQuotas.of(byEntity);
        } catch (IllegalStateException e) {
            throw r.corrupt(e.getMessage());
        }
    }
}
