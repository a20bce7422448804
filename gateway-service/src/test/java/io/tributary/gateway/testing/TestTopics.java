package io.tributary.gateway.testing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.awaitility.Awaitility;

/** Topics for tests, created directly with Kafka's AdminClient. */
public final class TestTopics {

    private TestTopics() {}

    /** Creates {@code name} (replication factor 1) and waits until every partition has a leader. */
    public static void create(Admin admin, String name, int partitions, Map<String, String> configs) {
        try {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("could not create topic " + name, e);
        }
        // the controller has it; wait until the broker's metadata shows every partition with a leader
        Awaitility.await("topic " + name + " ready")
                .atMost(Duration.ofSeconds(30))
                .until(() -> {
                    try {
                        var d = admin.describeTopics(List.of(name))
                                .allTopicNames()
                                .get()
                                .get(name);
                        return d.partitions().size() == partitions
                                && d.partitions().stream()
                                        .allMatch(p -> p.leader() != null
                                                && !p.leader().isEmpty());
                    } catch (Exception notYet) {
                        return false;
                    }
                });
    }

    /** The id of {@code topic} as Kafka writes it ({@code Uuid.toString()}), as cursors carry it. */
    public static String topicId(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic)
                .topicId()
                .toString();
    }
}
