package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Every SCRAM credential change is an audit line ({@code io.tributary.security.audit}): who made it,
 * from where, for which user, which mechanisms, and never a key or salted password.
 */
class ScramAuditTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(1);
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);
    private final Logger audit = (Logger) LoggerFactory.getLogger("io.tributary.security.audit");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void listen() {
        lines.start();
        audit.addAppender(lines);
    }

    @AfterEach
    void stopListening() {
        audit.detachAppender(lines);
    }

    @Test
    void eachAlteredUserIsOneAuditLineWithoutItsSecrets() {
        var handler = new AlterUserScramCredentialsHandler(metadata, controlPlane, AdminApiConfig.defaults());
        byte[] salted = new byte[64];
        salted[0] = 42;
        var request = new AlterUserScramCredentialsRequest.Builder(new AlterUserScramCredentialsRequestData()
                .setUpsertions(List.of(new ScramCredentialUpsertion()
                        .setName("alice")
                        .setMechanism((byte) 2)
                        .setIterations(8192)
                        .setSalt(new byte[] {1, 2, 3})
                        .setSaltedPassword(salted)))
                .setDeletions(
                        List.of(new ScramCredentialDeletion().setName("bob").setMechanism((byte) 1))));

        AlterUserScramCredentialsResponse response = Wire.call(handler, request, 0);

        assertThat(response.data().results())
                .extracting(r -> Errors.forCode(r.errorCode()))
                .containsOnly(Errors.NONE);
        assertThat(lines.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .containsExactlyInAnyOrder(
                        "scram credentials altered: principal=User:ANONYMOUS host=127.0.0.1 user=alice"
                                + " [upserted SCRAM-SHA-512 (8192 iterations)]",
                        "scram credentials altered: principal=User:ANONYMOUS host=127.0.0.1 user=bob"
                                + " [deleted SCRAM-SHA-256]");
    }
}
