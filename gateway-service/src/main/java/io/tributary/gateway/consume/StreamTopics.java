package io.tributary.gateway.consume;

import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;

/** What the topic streams and tables ask first: the topic's description and the partitions asked for. */
final class StreamTopics {

    private StreamTopics() {}

    /** The partitions named by {@code partitions=} (every one when absent); 400 or 404 otherwise. */
    static List<Integer> partitions(String text, int count) {
        List<Integer> all = new ArrayList<>();
        if (text == null || text.isBlank()) {
            for (int p = 0; p < count; p++) {
                all.add(p);
            }
            return all;
        }
        for (String part : text.split(",", -1)) {
            int p;
            try {
                p = Integer.parseInt(part.strip());
            } catch (NumberFormatException e) {
                throw ProblemException.invalidParameter(
                        "partitions",
                        "partitions must be comma-separated partition numbers, got '%s'.".formatted(text));
            }
            if (p < 0 || p >= count) {
                throw new ProblemException(
                        ProblemType.PARTITION_NOT_FOUND,
                        "The topic has partitions 0 to %d; there is no partition %d.".formatted(count - 1, p));
            }
            if (!all.contains(p)) {
                all.add(p);
            }
        }
        return all;
    }

    /** The topic's id and partitions; 404 {@code topic-not-found}. */
    static TopicDescription describe(Admin admin, String topic, Duration clusterTimeout) {
        try {
            return admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(clusterTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .get(topic);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(ProblemType.CLUSTER_UNAVAILABLE, "Interrupted while asking the cluster.");
        } catch (Exception e) {
            ProblemException problem = KafkaProblems.toProblem(e);
            if (problem.type() == ProblemType.TOPIC_NOT_FOUND) {
                throw new ProblemException(ProblemType.TOPIC_NOT_FOUND, "Topic '%s' does not exist.".formatted(topic));
            }
            throw problem;
        }
    }
}
