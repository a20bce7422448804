package io.tributary.coordinator.app;

import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.security.ScramBootstrap;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the bootstrap SCRAM credentials once: every {@code interval} while this voter's image is not
 * bootstrapped, the leader submits a {@code BootstrapScramCredentials} command (fresh 32-byte salts
 * from a {@link SecureRandom}); the state machine applies only the first one the cluster ever
 * commits. Once the image says bootstrapped, the loop stops (on every voter). A cluster created
 * without bootstrap users is marked all the same, so users configured later are never written:
 * that is logged at WARN.
 *
 * <p>Thread-safety: one scheduler thread; start and stop under this object's lock.
 */
class ScramBootstrapLoop extends FixedDelayTask {

    private static final Logger log = LoggerFactory.getLogger(ScramBootstrapLoop.class);

    /** Salt length of the bootstrap credentials, as long as SHA-256's output. */
    static final int SALT_BYTES = 32;

    private final ScramBootstrap bootstrap;
    private final MetadataRaftNode node;
    private final MetadataClient client;
    private final SecureRandom random = new SecureRandom();

    ScramBootstrapLoop(ScramBootstrap bootstrap, MetadataRaftNode node, MetadataClient client, Duration interval) {
        super("scram-bootstrap", interval);
        this.bootstrap = bootstrap;
        this.node = node;
        this.client = client;
    }

    /** One attempt; whether the image is bootstrapped (then the loop is done). */
    @Override
    boolean step() {
        if (node.stateMachine().image().scramCredentials().bootstrapped()) {
            return true;
        }
        if (!node.isLeader()) {
            return false;
        }
        try {
            long version = client.submit(bootstrap.command(this::salt));
            log.info(
                    "SCRAM bootstrap committed at metadata version {} ({} configured credentials; the first"
                            + " bootstrap the cluster committed is the one applied)",
                    version,
                    bootstrap.users().size());
            return true;
        } catch (MetadataException e) {
            log.warn("SCRAM bootstrap refused: {}", e.getMessage());
        } catch (IOException e) {
            log.warn("SCRAM bootstrap not committed, retrying: {}", e.getMessage());
        }
        return false;
    }

    private byte[] salt() {
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        return salt;
    }

    @Override
    public synchronized void start() {
        if (node.stateMachine().image().scramCredentials().bootstrapped()) {
            if (!bootstrap.users().isEmpty()) {
                log.warn("tributary.coordinator.security.bootstrap-scram-users is set, but this cluster's"
                        + " metadata was created already: the users are not written (use"
                        + " AlterUserScramCredentials, kafka-configs.sh --alter --add-config)");
            }
            return;
        }
        super.start();
    }
}
