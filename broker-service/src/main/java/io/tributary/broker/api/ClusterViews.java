package io.tributary.broker.api;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.BrokerListeners;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.KafkaRequest;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

/**
 * What several handlers read from a {@link ClusterImage} the same way: the brokers clients may use
 * (on the listener a request came in on, {@link BrokerListeners}), the controller id to report,
 * topic-name validation, and waiting for a written version.
 */
final class ClusterViews {

    /** Kafka's "no controller known" and "no leader" id. */
    static final int NO_NODE = -1;

    private ClusterViews() {}

    /** A broker and the endpoint clients use. */
    record ClientBroker(BrokerInfo broker, BrokerEndpoint endpoint) {}

    /** The registered name of the listener {@code request} came in on ({@link BrokerListeners}). */
    static String listenerOf(KafkaRequest request) {
        return BrokerListeners.registeredName(request.listener());
    }

    /**
     * Registered brokers with an endpoint on {@code listener}, by id; fenced ones only when asked
     * for. A broker without that listener is left out, as Kafka does.
     */
    static List<ClientBroker> clientBrokers(ClusterImage image, FencedBrokers fenced, String listener) {
        return image.brokers().values().stream()
                .filter(b -> fenced == FencedBrokers.INCLUDE || !b.fenced())
                .flatMap(b -> b.endpoint(listener).map(e -> new ClientBroker(b, e)).stream())
                .sorted(Comparator.comparingInt(cb -> cb.broker().id()))
                .toList();
    }

    enum FencedBrokers {
        INCLUDE,
        EXCLUDE
    }

    /**
     * Ids of the brokers that are alive for clients of {@code listener}: registered, not fenced,
     * with an endpoint on that listener.
     */
    static Set<Integer> aliveBrokerIds(ClusterImage image, String listener) {
        return clientBrokers(image, FencedBrokers.EXCLUDE, listener).stream()
                .map(cb -> cb.broker().id())
                .collect(Collectors.toUnmodifiableSet());
    }

    /** Ids of the brokers that are alive on the internal listener, which every broker has. */
    static Set<Integer> aliveBrokerIds(ClusterImage image) {
        return aliveBrokerIds(image, BrokerListeners.INTERNAL);
    }

    /**
     * The controller id clients of {@code listener} are told: this broker when it is alive on that
     * listener, else the lowest such id, else -1. Any broker forwards admin writes to the
     * coordinators, so "the controller" only tells the AdminClient where to send them; answering
     * this broker keeps a client on the broker it already talks to (Kafka's KRaft brokers answer a
     * random alive broker for the same reason), and answering only brokers of the listener keeps
     * it on a node the client was told about.
     */
    static int controllerId(ClusterImage image, int selfId, String listener) {
        Set<Integer> alive = aliveBrokerIds(image, listener);
        if (alive.contains(selfId)) {
            return selfId;
        }
        return alive.stream().min(Integer::compare).orElse(NO_NODE);
    }

    /** INVALID_TOPIC_EXCEPTION with Kafka's reason when {@code name} is not a legal topic name. */
    static Optional<ApiError> invalidTopicName(String name) {
        if (name == null) {
            return Optional.of(new ApiError(Errors.INVALID_TOPIC_EXCEPTION, "topic name is missing"));
        }
        try {
            Topic.validate(name);
            return Optional.empty();
        } catch (InvalidTopicException e) {
            return Optional.of(new ApiError(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage()));
        }
    }

    /**
     * Waits until this broker's image reaches {@code version}, at most {@code timeout}; false when it
     * did not (or the thread was interrupted, whose flag is restored).
     */
    static boolean awaitVersion(MetadataView metadata, long version, Duration timeout) {
        try {
            return metadata.awaitVersion(version, timeout.isNegative() ? Duration.ZERO : timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code requested} ms, capped at {@code max}; 0 or less means "do not wait". */
    static Duration waitBudget(int requestedMs, Duration max) {
        if (requestedMs <= 0) {
            return Duration.ZERO;
        }
        Duration requested = Duration.ofMillis(requestedMs);
        return requested.compareTo(max) < 0 ? requested : max;
    }
}
