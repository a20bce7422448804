package io.tributary.common.security.internal;

import io.tributary.common.protocol.KafkaFrames;
import java.io.IOException;
import java.net.Socket;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.scram.internals.ScramSaslClientProvider;

/**
 * Logs a freshly connected blocking socket in to a SASL Kafka listener with SCRAM-SHA-512, as a
 * kafka-clients client does on a {@code SASL_PLAINTEXT} connection (KIP-152 framing):
 *
 * <ol>
 *   <li>SaslHandshake v1 naming {@value #MECHANISM}; an error (the listener does not offer it) fails
 *       the login with the mechanisms the listener lists;
 *   <li>SaslAuthenticate v2 carrying the client's first message, then its final message (the
 *       proof); an error fails the login with the listener's message (a wrong password or an
 *       unknown user is {@code SASL_AUTHENTICATION_FAILED});
 *   <li>the server's final message is checked: the server proves it knew the stored credential (a
 *       server that did not fails the login), and the exchange is complete.
 * </ol>
 *
 * <p>The SCRAM client is kafka-clients' own ({@code ScramSaslClientProvider}). The password never
 * crosses the network. The socket's read timeout bounds each answer; the caller closes the socket
 * when the login fails.
 *
 * <p>Thread-safety: stateless; one login per socket, on the thread that owns it.
 */
public final class ScramSocketLogin {

    static {
        ScramSaslClientProvider.initialize();
    }

    /** The mechanism Tributary's processes log in with. */
    public static final String MECHANISM = "SCRAM-SHA-512";

    /** SCRAM takes two SaslAuthenticate round trips; a server asking for more is refused. */
    static final int MAX_ROUNDS = 4;

    private static final short HANDSHAKE_VERSION = 1;
    private static final short AUTHENTICATE_VERSION = 2;

    private ScramSocketLogin() {}

    /** A failed login: the server refused it, or answered in a way SCRAM does not allow. */
    public static final class LoginFailedException extends IOException {
        LoginFailedException(String message) {
            super(message);
        }

        LoginFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Logs {@code socket} in as {@code login}'s user.
     *
     * @param clientId the client id of the exchange's request headers
     * @param maxResponseBytes the largest answer read
     * @throws LoginFailedException when the listener refuses the mechanism or the credentials, or
     *     its final message does not prove it knew the credential
     * @throws IOException when the socket fails
     */
    public static void login(Socket socket, InternalLogin login, String clientId, int maxResponseBytes)
            throws IOException {
        int correlationId = 0;
        SaslHandshakeRequest handshake = new SaslHandshakeRequest.Builder(
                        new SaslHandshakeRequestData().setMechanism(MECHANISM))
                .build(HANDSHAKE_VERSION);
        SaslHandshakeResponse handshaken = expect(
                SaslHandshakeResponse.class, send(socket, handshake, clientId, ++correlationId, maxResponseBytes));
        Errors handshakeError = Errors.forCode(handshaken.data().errorCode());
        if (handshakeError != Errors.NONE) {
            throw new LoginFailedException("the listener refused SASL mechanism " + MECHANISM + " (" + handshakeError
                    + "); it offers " + handshaken.data().mechanisms());
        }
        SaslClient client = client(login);
        try {
            byte[] token = client.evaluateChallenge(new byte[0]);
            for (int round = 0; !client.isComplete(); round++) {
                if (round == MAX_ROUNDS) {
                    throw new LoginFailedException("the SCRAM exchange did not complete in " + MAX_ROUNDS + " rounds");
                }
                SaslAuthenticateRequest authenticate = new SaslAuthenticateRequest.Builder(
                                new SaslAuthenticateRequestData().setAuthBytes(token))
                        .build(AUTHENTICATE_VERSION);
                SaslAuthenticateResponse answer = expect(
                        SaslAuthenticateResponse.class,
                        send(socket, authenticate, clientId, ++correlationId, maxResponseBytes));
                Errors error = Errors.forCode(answer.data().errorCode());
                if (error != Errors.NONE) {
                    throw new LoginFailedException("login as " + login.user() + " refused (" + error + "): "
                            + answer.data().errorMessage());
                }
                token = client.evaluateChallenge(answer.data().authBytes());
            }
        } catch (SaslException e) {
            throw new LoginFailedException("login as " + login.user() + " failed: " + e.getMessage(), e);
        } finally {
            client.dispose();
        }
    }

    private static AbstractResponse send(
            Socket socket, AbstractRequest request, String clientId, int correlationId, int maxResponseBytes)
            throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), clientId, correlationId);
        return KafkaFrames.roundTrip(socket, request, header, maxResponseBytes);
    }

    private static <T extends AbstractResponse> T expect(Class<T> type, AbstractResponse response)
            throws LoginFailedException {
        if (!type.isInstance(response)) {
            throw new LoginFailedException("the listener answered with " + response.apiKey());
        }
        return type.cast(response);
    }

    private static SaslClient client(InternalLogin login) throws LoginFailedException {
        try {
            SaslClient client = Sasl.createSaslClient(
                    new String[] {MECHANISM}, null, "kafka", "tributary", Map.of(), (Callback[] callbacks) -> {
                        for (Callback callback : callbacks) {
                            if (callback instanceof NameCallback name) {
                                name.setName(login.user());
                            } else if (callback instanceof PasswordCallback password) {
                                password.setPassword(login.password().toCharArray());
                            }
                        }
                    });
            if (client == null) {
                throw new LoginFailedException("no SASL client for " + MECHANISM);
            }
            return client;
        } catch (SaslException e) {
            throw new LoginFailedException("cannot start a " + MECHANISM + " client: " + e.getMessage(), e);
        }
    }
}
