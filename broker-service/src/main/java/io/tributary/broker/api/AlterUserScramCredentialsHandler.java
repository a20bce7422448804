package io.tributary.broker.api;

import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlane.ScramDeletion;
import io.tributary.broker.cluster.ControlPlane.ScramUpsertion;
import io.tributary.broker.cluster.ControlPlane.ScramWrite;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.common.security.sasl.ScramKeys;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsResponse;
import org.apache.kafka.common.requests.ApiError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AlterUserScramCredentials (API key 51), version 0: forwarded to the coordinators' control plane,
 * as Kafka's brokers forward it to the controller. Each upsertion's stored and server keys are
 * derived here from its salted password ({@link ScramKeys#fromSaltedPassword}), so neither the
 * password nor the salted password leaves this broker; an upsertion whose keys cannot be derived (an
 * unknown mechanism, an empty salted password) goes on without keys and the coordinators answer its
 * user's error. The coordinators' leader runs Kafka's per-user checks (DUPLICATE_RESOURCE,
 * UNACCEPTABLE_CREDENTIAL, UNSUPPORTED_SASL_MECHANISM, RESOURCE_NOT_FOUND: {@code
 * io.tributary.coordinator.security.ScramAlterations}) and writes the accepted changes in one Raft
 * command. The answer then waits, up to {@link AdminApiConfig#maxMetadataWait()}, until this
 * broker's image has them, so a DescribeUserScramCredentials sent next sees them.
 *
 * <p>A control-plane failure answers every user of the request with the mapped error ({@link
 * ControlPlaneErrors}: NOT_CONTROLLER while the coordinators elect a leader, which clients retry).
 *
 * <p>Thread-safety: stateless.
 */
public final class AlterUserScramCredentialsHandler implements RequestHandler {

    private static final Logger log = LoggerFactory.getLogger(AlterUserScramCredentialsHandler.class);

    private static final Logger audit = LoggerFactory.getLogger("io.tributary.security.audit");

    private final MetadataView metadata;
    private final ControlPlane controlPlane;
    private final AdminApiConfig config;

    public AlterUserScramCredentialsHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public ApiVersionRange versions() {
        return ApiVersionRange.of(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, 0, 0);
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        AlterUserScramCredentialsRequestData data =
                request.body(AlterUserScramCredentialsRequest.class).data();
        List<ScramDeletion> deletions = new ArrayList<>();
        Set<String> users = new LinkedHashSet<>();
        for (ScramCredentialDeletion d : data.deletions()) {
            deletions.add(new ScramDeletion(d.name(), d.mechanism()));
            users.add(d.name());
        }
        List<ScramUpsertion> upsertions = new ArrayList<>();
        for (ScramCredentialUpsertion u : data.upsertions()) {
            upsertions.add(upsertion(u));
            users.add(u.name());
        }
        var response = new AlterUserScramCredentialsResponseData();
        try {
            ScramWrite write = controlPlane.alterScramCredentials(deletions, upsertions);
            for (ControlPlane.ScramResult r : write.results()) {
                if (r.error().equals(Errors.NONE.name())) {
                    auditChange(request, r.user(), deletions, upsertions);
                }
                response.results()
                        .add(new AlterUserScramCredentialsResult()
                                .setUser(r.user())
                                .setErrorCode(
                                        ControlPlaneErrors.named(r.error()).code())
                                .setErrorMessage(r.message()));
            }
            if (write.results().stream().anyMatch(r -> r.error().equals(Errors.NONE.name()))) {
                log.info("SCRAM credentials altered at metadata version {}", write.version());
                if (!ClusterViews.awaitVersion(metadata, write.version(), config.maxMetadataWait())) {
                    log.warn(
                            "SCRAM credentials written at metadata version {}, which this broker has not"
                                    + " reached within {}",
                            write.version(),
                            config.maxMetadataWait());
                }
            }
        } catch (ControlPlaneException e) {
            ApiError error = ControlPlaneErrors.toApiError(e);
            for (String user : users) {
                response.results()
                        .add(new AlterUserScramCredentialsResult()
                                .setUser(user)
                                .setErrorCode(error.error().code())
                                .setErrorMessage(error.message()));
            }
        }
        return new AlterUserScramCredentialsResponse(response);
    }

    /**
     * One audit line ({@code io.tributary.security.audit}) per user whose credentials changed: who
     * changed them, from where, and which mechanisms were upserted or deleted (never a key).
     */
    private static void auditChange(
            KafkaRequest request, String user, List<ScramDeletion> deletions, List<ScramUpsertion> upsertions) {
        List<String> changes = new ArrayList<>();
        for (ScramDeletion d : deletions) {
            if (d.user().equals(user)) {
                changes.add("deleted " + ScramKeys.name(d.mechanism()).orElse("mechanism " + d.mechanism()));
            }
        }
        for (ScramUpsertion u : upsertions) {
            if (u.user().equals(user)) {
                changes.add("upserted " + ScramKeys.name(u.mechanism()).orElse("mechanism " + u.mechanism()) + " ("
                        + u.iterations() + " iterations)");
            }
        }
        audit.info(
                "scram credentials altered: principal={} host={} user={} {}",
                request.connection().principal(),
                request.connection().remoteAddress().getAddress().getHostAddress(),
                user,
                changes);
    }

    /** The upsertion with its keys, or without keys when they cannot be derived. */
    private static ScramUpsertion upsertion(ScramCredentialUpsertion u) {
        byte[] salt = u.salt() == null ? new byte[0] : u.salt();
        byte[] salted = u.saltedPassword() == null ? new byte[0] : u.saltedPassword();
        if (ScramKeys.name(u.mechanism()).isEmpty() || salted.length == 0) {
            return new ScramUpsertion(u.name(), u.mechanism(), u.iterations(), salt, new byte[0], new byte[0]);
        }
        ScramCredentialData c = ScramKeys.fromSaltedPassword(u.mechanism(), salt, salted, u.iterations());
        return new ScramUpsertion(u.name(), u.mechanism(), u.iterations(), salt, c.storedKey(), c.serverKey());
    }
}
