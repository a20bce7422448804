package io.tributary.broker.security;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataListener;
import io.tributary.broker.cluster.ScramUsers;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's SCRAM credentials as a SASL listener reads them: the credentials of this broker's
 * newest {@link ClusterImage} (the coordinators' replicated store, changed by
 * AlterUserScramCredentials and the bootstrap users), replaced on every image that changes them.
 *
 * <p>SCRAM-SHA-256 and SCRAM-SHA-512 answer the stored credential as it is. PLAIN is checked against
 * the same store: a password is accepted when one of the user's SCRAM credentials was made from it
 * ({@link ScramKeys#matches}: one hash of the credential's iterations per check), so one set of users
 * serves every mechanism. A user without SCRAM credentials has no PLAIN password here; checking one
 * hashes as long as a known user's check with the default iterations, so the answer's time does not
 * reveal who exists.
 *
 * <p>Thread-safety: the credentials are one volatile reference to an immutable value, set on the
 * metadata follower's thread and read on connections' threads; a lookup sees the credentials of one
 * image, before or after a change, never a mix.
 */
public final class ClusterCredentials implements CredentialLookup, MetadataListener {

    private static final Logger log = LoggerFactory.getLogger(ClusterCredentials.class);

    /**
     * What an unknown user's PLAIN password is checked against: a credential no password makes
     * (zero keys), hashed with the default iterations (4096, what {@code kafka-configs.sh} and the
     * AdminClient use unless told otherwise), so an unknown user costs what a known user's wrong
     * password costs.
     */
    private static final ScramCredentialData UNKNOWN_USER =
            new ScramCredentialData(new byte[16], new byte[64], new byte[64], ScramKeys.MIN_ITERATIONS);

    private volatile ScramUsers users = ScramUsers.EMPTY;

    @Override
    public void onImage(ClusterImage previous, ClusterImage next) {
        ScramUsers changed = next.scramCredentials();
        if (!changed.equals(users)) {
            users = changed;
            log.info(
                    "SCRAM credentials at metadata version {}: {} users",
                    next.version(),
                    changed.users().size());
        }
    }

    @Override
    public Optional<ScramCredentialData> scram(String mechanism, String user) {
        return users.get(mechanism, user);
    }

    @Override
    public boolean checkPlain(String user, char[] password) {
        Map<Integer, ScramCredentialData> byMechanism = users.users().get(user);
        if (byMechanism == null) {
            // The same work as a wrong password, so the time taken does not tell whether the user exists.
            ScramKeys.matches(ScramKeys.SCRAM_SHA_512, UNKNOWN_USER, password);
            return false;
        }
        for (Map.Entry<Integer, ScramCredentialData> e : byMechanism.entrySet()) {
            if (ScramKeys.matches(e.getKey(), e.getValue(), password)) {
                return true;
            }
        }
        return false;
    }

    /** How many users have credentials now. */
    public int userCount() {
        return users.users().size();
    }
}
