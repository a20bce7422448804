package io.tributary.coordinator.app;

import io.tributary.coordinator.metadata.MetadataCommand.AlterScramCredentials;
import io.tributary.coordinator.metadata.MetadataCommand.ScramUpsertion;
import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.security.InternalCredentials;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the internal logins' SCRAM credentials in the cluster's store ({@link InternalCredentials}):
 * every {@code interval}, while this voter leads, the credentials of the coordinators and of every
 * registered broker that are missing or not made from this coordinator's cluster secret are written
 * in one {@code AlterScramCredentials} command. A broker registered a moment ago gets its credential
 * within an interval; until its peers' images have it, its logins are refused and retried (its
 * fetchers back off, a forwarded group request answers COORDINATOR_NOT_AVAILABLE).
 *
 * <p>Runs only when the cluster secret is set ({@code tributary.coordinator.control.secret-file}).
 * Every coordinator must hold the same secret: two secrets would overwrite each other's credentials
 * at each leader change. During a rotation ({@code previous-secret-file}) a broker's credential
 * follows the secret the broker signs with, so a coordinator that already has the new secret and
 * one that does not yet agree on every broker's credential; only the coordinators' own credential
 * changes with the leader (only the leader uses it).
 *
 * <p>Thread-safety: one scheduler thread; start and stop under this object's lock.
 */
class InternalCredentialsLoop extends FixedDelayTask {

    private static final Logger log = LoggerFactory.getLogger(InternalCredentialsLoop.class);

    private final InternalCredentials credentials;
    private final MetadataRaftNode node;
    private final MetadataClient client;

    InternalCredentialsLoop(
            InternalCredentials credentials, MetadataRaftNode node, MetadataClient client, Duration interval) {
        super("internal-credentials", interval);
        this.credentials = credentials;
        this.node = node;
        this.client = client;
    }

    /** One round: writes what is missing when this voter leads; never done. */
    @Override
    boolean step() {
        if (!node.isLeader()) {
            return false;
        }
        MetadataImage image = node.stateMachine().image();
        Optional<AlterScramCredentials> command =
                credentials.missing(image.scramCredentials(), image.brokers().keySet());
        if (command.isEmpty()) {
            return false;
        }
        try {
            long version = client.submit(command.get());
            log.info(
                    "internal SCRAM credentials written at metadata version {}: {}",
                    version,
                    command.get().upsertions().stream()
                            .map(ScramUpsertion::user)
                            .toList());
        } catch (MetadataException e) {
            log.warn("internal SCRAM credentials refused: {}", e.getMessage());
        } catch (IOException e) {
            log.warn("internal SCRAM credentials not committed, retrying: {}", e.getMessage());
        }
        return false;
    }
}
