package io.tributary.gateway.admin;

import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * Which topics exist and how many partitions each has, asked of the cluster through the AdminClient
 * and remembered for {@code ttl}. Produce and fetch ask it first, so an unknown topic or partition is
 * a quick 404 instead of a client waiting for metadata that never comes. A partition number beyond
 * what is remembered is asked again (partitions may have been added). Thread-safe.
 */
public final class TopicCatalog {

    private record Entry(int partitions, long expiresAtMs) {}

    private final Admin admin;
    private final Duration timeout;
    private final Duration ttl;
    private final InstantSource clock;
    private final Map<String, Entry> known = new ConcurrentHashMap<>();

    public TopicCatalog(Admin admin, Duration timeout, Duration ttl, InstantSource clock) {
        this.admin = admin;
        this.timeout = timeout;
        this.ttl = ttl;
        this.clock = clock;
    }

    /** The topic's partition count; 404 {@code topic-not-found} when it does not exist. */
    public int partitions(String topic) {
        Entry e = known.get(topic);
        if (e != null && e.expiresAtMs() > clock.millis()) {
            return e.partitions();
        }
        return describe(topic);
    }

    /** Checks that {@code partition} exists in {@code topic}: 404 {@code partition-not-found} otherwise. */
    public void requirePartition(String topic, int partition) {
        int count = partitions(topic);
        if (partition >= count && partition >= 0) {
            count = describe(topic);
        }
        if (partition < 0 || partition >= count) {
            throw new ProblemException(
                    ProblemType.PARTITION_NOT_FOUND,
                    "Topic '%s' has partitions 0 to %d; there is no partition %d."
                            .formatted(topic, count - 1, partition));
        }
    }

    /** Forgets {@code topic} (it was deleted or re-created through the gateway). */
    public void forget(String topic) {
        known.remove(topic);
    }

    private int describe(String topic) {
        try {
            TopicDescription d = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .get(topic);
            int count = d.partitions().size();
            known.put(topic, new Entry(count, clock.millis() + ttl.toMillis()));
            return count;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while asking the cluster.");
        } catch (Exception e) {
            known.remove(topic);
            ProblemException problem = KafkaProblems.toProblem(e);
            if (problem.type() == ProblemType.TOPIC_NOT_FOUND) {
                throw new ProblemException(ProblemType.TOPIC_NOT_FOUND, "Topic '%s' does not exist.".formatted(topic));
            }
            throw problem;
        }
    }
}
