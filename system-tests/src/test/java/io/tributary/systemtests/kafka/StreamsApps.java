package io.tributary.systemtests.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the Kafka Streams tests ({@link StreamsGroupIT}, {@link KTableRestoreIT}) do alike with their instances. */
final class StreamsApps {

    private static final Logger log = LoggerFactory.getLogger(StreamsApps.class);

    private StreamsApps() {}

    /**
     * Throws when instance {@code name} failed ({@code failure}, set by its uncaught exception
     * handler) or stopped. Not an assertion: Awaitility would retry it; a dead instance fails the
     * wait at once.
     */
    static void checkAlive(String name, KafkaStreams streams, AtomicReference<Throwable> failure) {
        Throwable e = failure.get();
        if (e != null) {
            throw new IllegalStateException("instance " + name + " died", e);
        }
        KafkaStreams.State state = streams.state();
        if (state == KafkaStreams.State.ERROR
                || state == KafkaStreams.State.PENDING_ERROR
                || state == KafkaStreams.State.NOT_RUNNING) {
            throw new IllegalStateException("instance " + name + " is " + state);
        }
    }

    /** Closes an instance, leaving its group (Kafka Streams would otherwise stay until its session ran out). */
    static void closeLeaving(KafkaStreams streams) {
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Clients.PATIENCE));
    }

    /** Deletes a state directory tree, logging what could not be deleted. */
    static void deleteQuietly(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            log.warn("could not delete {}", root, e);
        }
    }
}
