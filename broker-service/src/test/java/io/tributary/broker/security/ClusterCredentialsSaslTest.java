package io.tributary.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.ScramUsers;
import io.tributary.common.security.sasl.SaslSession;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.common.testing.ScramClients;
import java.util.List;
import java.util.Map;
import javax.security.sasl.SaslClient;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Credentials as the coordinators store them (made from a password, as the bootstrap users are, or
 * from a salted password, as AlterUserScramCredentials carries it) authenticate kafka-clients' own
 * SCRAM client through a listener's {@link SaslSession}, which checks the client's proof against the
 * stored key, and the client checks the server's signature (the server key).
 */
class ClusterCredentialsSaslTest {

    private static final byte[] SALT = {4, 5, 6, 7};

    @ParameterizedTest
    @ValueSource(strings = {"SCRAM-SHA-256", "SCRAM-SHA-512"})
    void aKafkaScramClientAuthenticatesOnlyWithTheRightPassword(String mechanism) throws Exception {
        int code = ScramKeys.code(mechanism).orElseThrow();
        ClusterCredentials credentials = new ClusterCredentials();
        credentials.onImage(
                ClusterImage.EMPTY,
                new ClusterImage(
                        1,
                        Map.of(),
                        Map.of(),
                        new ScramUsers(
                                Map.of("alice", Map.of(code, ScramKeys.fromPassword(code, "alice-pw", SALT, 4096))))));

        assertThat(exchange(credentials, mechanism, "alice", "alice-pw")).isEqualTo(SaslSession.State.COMPLETE);
        assertThat(exchange(credentials, mechanism, "alice", "wrong")).isEqualTo(SaslSession.State.FAILED);
        assertThat(exchange(credentials, mechanism, "bob", "alice-pw")).isEqualTo(SaslSession.State.FAILED);
    }

    /** One exchange; the session's state at its end (the client verified the server's final message). */
    private static SaslSession.State exchange(
            ClusterCredentials credentials, String mechanism, String user, String password) throws Exception {
        SaslSession session = new SaslSession(new SaslSettings(List.of(mechanism), credentials), "127.0.0.1");
        session.handle(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism))
                .build((short) 1));
        SaslClient client = ScramClients.client(mechanism, user, password);
        byte[] token = client.evaluateChallenge(new byte[0]);
        while (true) {
            SaslAuthenticateResponse answer = (SaslAuthenticateResponse) session.handle(
                            new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(token))
                                    .build((short) 2))
                    .response();
            if (answer.error() != Errors.NONE) {
                return session.state();
            }
            byte[] next = client.evaluateChallenge(answer.saslAuthBytes());
            if (session.authenticated()) {
                assertThat(client.isComplete())
                        .as("the client accepted the server's signature")
                        .isTrue();
                return session.state();
            }
            token = next;
        }
    }
}
