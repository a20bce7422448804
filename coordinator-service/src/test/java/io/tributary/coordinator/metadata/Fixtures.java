package io.tributary.coordinator.metadata;

import io.tributary.coordinator.group.classic.ClassicGroupRecord;
import io.tributary.coordinator.metadata.MetadataCommand.CreateTopics;
import io.tributary.coordinator.metadata.MetadataCommand.NewTopic;
import io.tributary.coordinator.metadata.MetadataCommand.RegisterBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.random.RandomGenerator;

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

    /**
     * A classic group's generation with these members (the first one leads; ids starting with {@code
     * static} are static members), each assigned {@code generationId % 3} zero bytes; no member means
     * an empty group (no protocol, no leader).
     */
    public static ClassicGroupRecord classicGeneration(String groupId, int generationId, String... memberIds) {
        List<ClassicGroupRecord.Member> members = new ArrayList<>();
        for (String id : memberIds) {
            members.add(new ClassicGroupRecord.Member(
                    id,
                    id.startsWith("static") ? Optional.of("instance-" + id) : Optional.empty(),
                    "client-" + id,
                    "/127.0.0.1",
                    300_000,
                    45_000,
                    new byte[] {0, 3, 't'},
                    new byte[generationId % 3]));
        }
        return new ClassicGroupRecord(
                groupId,
                "consumer",
                members.isEmpty() ? "" : "range",
                generationId,
                members.isEmpty() ? "" : memberIds[0],
                1_700_000_000_000L + generationId,
                members);
    }

    /**
     * A random classic group: 0 to 5 members (distinct member ids, in id order), some static, with
     * subscriptions and assignments of 0 to 20 bytes (empty ones often), and ids with non-ASCII
     * characters.
     */
    public static ClassicGroupRecord classicGroup(RandomGenerator r, String groupId) {
        List<ClassicGroupRecord.Member> members = new ArrayList<>();
        int count = r.nextInt(0, 6);
        for (int i = 0; i < count; i++) {
            members.add(new ClassicGroupRecord.Member(
                    "member-" + i + "-é" + r.nextInt(1000),
                    r.nextBoolean() ? Optional.of("instance-" + r.nextInt(100)) : Optional.empty(),
                    "client-" + r.nextInt(10),
                    "/127.0.0." + r.nextInt(256),
                    r.nextInt(0, Integer.MAX_VALUE),
                    r.nextInt(),
                    randomBytes(r),
                    randomBytes(r)));
        }
        boolean empty = members.isEmpty();
        return new ClassicGroupRecord(
                groupId,
                r.nextBoolean() ? "consumer" : "",
                empty ? "" : "range",
                r.nextInt(0, Integer.MAX_VALUE),
                empty ? "" : members.get(r.nextInt(members.size())).memberId(),
                r.nextLong(),
                members);
    }

    private static byte[] randomBytes(RandomGenerator r) {
        byte[] bytes = new byte[r.nextBoolean() ? 0 : r.nextInt(0, 21)];
        r.nextBytes(bytes);
        return bytes;
    }
}
