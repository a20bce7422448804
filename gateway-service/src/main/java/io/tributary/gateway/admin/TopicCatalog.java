package io.tributary.gateway.admin;

import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Which topics exist, how many partitions each has and whether it is compacted, asked of the cluster
 * through the AdminClient and remembered for {@code ttl}. Produce and fetch ask it first, so an unknown topic or partition is
 * a quick 404 instead of a client waiting for metadata that never comes. A partition number beyond
 * what is remembered is asked again (partitions may have been added). A topic's {@code cleanup.policy} is asked only
 * when a record without a key is produced ({@link #compacted}): the gateway refuses such a record to
 * a compacted topic itself, so it never reaches a shared producer's batch (where the broker's refusal
 * would fail the batch's other records, of other requests too). A policy changed outside the gateway
 * is seen within {@code ttl}; until then the broker refuses the record as before. Thread-safe.
 */
public final class TopicCatalog {

    private record Entry(int partitions, long expiresAtMs) {}

    private record Policy(boolean compacted, long expiresAtMs) {}

    /** The topic config that says whether a topic is compacted. */
    private static final String CLEANUP_POLICY = "cleanup.policy";

    private final Admin admin;
    private final Duration timeout;
    private final Duration ttl;
    private final InstantSource clock;
    private final Map<String, Entry> known = new ConcurrentHashMap<>();
    private final Map<String, Policy> policies = new ConcurrentHashMap<>();

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

    /**
     * Whether {@code topic}'s {@code cleanup.policy} includes {@code compact} (a compacted topic
     * refuses records without a key); 404 {@code topic-not-found} when it does not exist.
     */
    public boolean compacted(String topic) {
        Policy p = policies.get(topic);
        if (p != null && p.expiresAtMs() > clock.millis()) {
            return p.compacted();
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = ask(
                topic,
                () -> admin.describeConfigs(List.of(resource))
                        .all()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .get(resource));
        ConfigEntry entry = config == null ? null : config.get(CLEANUP_POLICY);
        boolean compacted = entry != null
                && entry.value() != null
                && Arrays.stream(entry.value().split(",")).map(String::strip).anyMatch("compact"::equals);
        policies.put(topic, new Policy(compacted, clock.millis() + ttl.toMillis()));
        return compacted;
    }

    /** Forgets {@code topic} (it was deleted or re-created through the gateway). */
    public void forget(String topic) {
        known.remove(topic);
        policies.remove(topic);
    }

    private int describe(String topic) {
        TopicDescription d = ask(
                topic,
                () -> admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .get(topic));
        int count = d.partitions().size();
        known.put(topic, new Entry(count, clock.millis() + ttl.toMillis()));
        return count;
    }

    /** The cluster's answer about {@code topic}; its failure as a problem (the topic forgotten). */
    private <T> T ask(String topic, Callable<T> call) {
        try {
            return call.call();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while asking the cluster.");
        } catch (Exception e) {
            forget(topic);
            ProblemException problem = KafkaProblems.toProblem(e);
            if (problem.type() == ProblemType.TOPIC_NOT_FOUND) {
                throw new ProblemException(ProblemType.TOPIC_NOT_FOUND, "Topic '%s' does not exist.".formatted(topic));
            }
            throw problem;
        }
    }
}
