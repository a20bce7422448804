package io.tributary.coordinator.metadata;

import io.tributary.coordinator.metadata.MetadataCommand.CreateTopics;
import io.tributary.coordinator.metadata.MetadataCommand.NewTopic;
import io.tributary.coordinator.metadata.MetadataCommand.RegisterBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** Builders of commands and images for tests. */
public final class Fixtures {

    private Fixtures() {}

    /** A deterministic incarnation id for broker {@code id}, generation {@code generation}. */
    public static UUID incarnation(int id, int generation) {
        return new UUID(0x1000L + id, generation + 1L);
    }

    /** A deterministic topic id for a name. */
    public static UUID topicId(String name) {
        return UUID.nameUUIDFromBytes(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public static RegisterBroker register(int id, int generation, Optional<String> rack) {
        return new RegisterBroker(
                id,
                incarnation(id, generation),
                List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9092 + id)),
                rack,
                1_000L * id);
    }

    /** An image with brokers {@code 0..n-1} registered and unfenced (rack {@code r<id % racks>}). */
    public static MetadataImage liveBrokers(int n, int racks) {
        MetadataImage image = MetadataImage.EMPTY;
        for (int id = 0; id < n; id++) {
            image = image.apply(register(id, 0, Optional.of("r" + (id % racks))));
            image = image.apply(new UnfenceBroker(id, incarnation(id, 0)));
        }
        return image;
    }

    public static CreateTopics createTopic(String name, List<List<Integer>> assignments) {
        return createTopic(name, assignments, Map.of());
    }

    public static CreateTopics createTopic(String name, List<List<Integer>> assignments, Map<String, String> configs) {
        return new CreateTopics(List.of(new NewTopic(name, topicId(name), assignments, configs)));
    }
}
