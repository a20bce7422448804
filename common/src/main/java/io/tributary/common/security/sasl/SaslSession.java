package io.tributary.common.security.sasl;

import io.tributary.common.security.acl.KafkaPrincipal;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.IllegalSaslStateException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.plain.internals.PlainSaslServerProvider;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;
import org.apache.kafka.common.security.scram.internals.ScramSaslServerProvider;
import org.apache.kafka.common.security.token.delegation.internals.DelegationTokenCredentialCallback;

/**
 * One connection's SASL exchange on a SASL listener, with Kafka's states and answers:
 *
 * <ol>
 *   <li>HANDSHAKE: ApiVersions is answered as usual; SaslHandshake naming an enabled mechanism is
 *       answered {@code NONE} and moves on; naming another it is answered {@code
 *       UNSUPPORTED_SASL_MECHANISM} with the enabled list, and the connection closes after the
 *       answer; any other request closes the connection without an answer ({@code "Unexpected
 *       Kafka request of type X during SASL handshake."} in the log).
 *   <li>AUTHENTICATE: each SaslAuthenticate carries the mechanism's next token; the answer carries
 *       the server's. A wrong password or unknown user is answered {@code SASL_AUTHENTICATION_FAILED}
 *       with Kafka's message ({@code "Authentication failed during authentication due to invalid
 *       credentials with SASL mechanism M"}, or the mechanism's own for PLAIN), and the connection
 *       closes after it; any other request is answered {@code ILLEGAL_SASL_STATE} and closes it.
 *   <li>COMPLETE: the connection acts as {@code User:<authenticated name>}; a new SaslHandshake or
 *       SaslAuthenticate is answered {@code ILLEGAL_SASL_STATE} and closes it (re-authentication,
 *       KIP-368, is not offered: every answer's {@code session_lifetime_ms} is 0).
 * </ol>
 *
 * <p>The mechanisms are kafka-clients' own server implementations (registered as JCA providers once
 * per JVM); this class feeds them credentials from the {@link CredentialLookup}. Not thread-safe:
 * one per connection, used by its thread only.
 */
public final class SaslSession {

    static {
        PlainSaslServerProvider.initialize();
        ScramSaslServerProvider.initialize();
    }

    /** Where the exchange is. */
    public enum State {
        HANDSHAKE,
        AUTHENTICATE,
        COMPLETE,
        FAILED
    }

    /**
     * What to do with a request during the exchange.
     *
     * @param response the answer to send, or null to close without one
     * @param closeAfter whether to close the connection once the answer is sent
     */
    public record Step(AbstractResponse response, boolean closeAfter) {}

    private final SaslSettings settings;
    private final String serverName;
    private State state = State.HANDSHAKE;
    private String mechanism;
    private SaslServer server;
    private KafkaPrincipal principal;

    /**
     * @param serverName the host name the server is reached at (used by mechanisms that bind to it;
     *     PLAIN and SCRAM do not)
     */
    public SaslSession(SaslSettings settings, String serverName) {
        this.settings = settings;
        this.serverName = serverName;
    }

    public State state() {
        return state;
    }

    /** Whether the exchange completed: requests other than the exchange's may be served. */
    public boolean authenticated() {
        return state == State.COMPLETE;
    }

    /** The authenticated principal; only once {@link #authenticated()}. */
    public KafkaPrincipal principal() {
        if (principal == null) {
            throw new IllegalStateException("the SASL exchange has not completed");
        }
        return principal;
    }

    /** The mechanism the client chose, or null before its SaslHandshake. */
    public String mechanism() {
        return mechanism;
    }

    /**
     * The step for a request that is not ApiVersions while the exchange is not complete, or for
     * SaslHandshake/SaslAuthenticate after it: an answer and whether to close after it, or no answer
     * and close.
     */
    public Step handle(AbstractRequest request) {
        return switch (state) {
            case HANDSHAKE ->
                request instanceof SaslHandshakeRequest handshake ? handshake(handshake) : closeSilently();
            case AUTHENTICATE ->
                request instanceof SaslAuthenticateRequest authenticate
                        ? authenticate(authenticate)
                        : illegalState(
                                request,
                                "Unexpected Kafka request of type " + request.apiKey()
                                        + " during SASL authentication.");
            case COMPLETE ->
                illegalState(
                        request,
                        "SASL authentication is complete and re-authentication is not" + " enabled on this listener.");
            case FAILED -> closeSilently();
        };
    }

    private Step handshake(SaslHandshakeRequest request) {
        String requested = request.data().mechanism();
        if (!settings.enabledMechanisms().contains(requested)) {
            state = State.FAILED;
            SaslHandshakeResponseData data = new SaslHandshakeResponseData()
                    .setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())
                    .setMechanisms(settings.enabledMechanisms());
            return new Step(new SaslHandshakeResponse(data), true);
        }
        try {
            server = Sasl.createSaslServer(requested, "kafka", serverName, Map.of(), new Callbacks(requested));
        } catch (SaslException e) {
            state = State.FAILED;
            return new Step(request.getErrorResponse(new UnsupportedSaslMechanismException(e.getMessage())), true);
        }
        if (server == null) {
            state = State.FAILED;
            return new Step(
                    request.getErrorResponse(new UnsupportedSaslMechanismException("no SASL server for " + requested)),
                    true);
        }
        mechanism = requested;
        state = State.AUTHENTICATE;
        return new Step(
                new SaslHandshakeResponse(new SaslHandshakeResponseData()
                        .setErrorCode(Errors.NONE.code())
                        .setMechanisms(settings.enabledMechanisms())),
                false);
    }

    private Step authenticate(SaslAuthenticateRequest request) {
        byte[] challenge;
        try {
            challenge = server.evaluateResponse(request.data().authBytes());
        } catch (SaslAuthenticationException e) {
            return failed(e.getMessage());
        } catch (SaslException | RuntimeException e) {
            // A wrong credential, or a token the mechanism cannot parse (kafka-clients' parsers
            // throw their own exceptions): Kafka's answer names only the mechanism.
            return failed("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                    + mechanism);
        }
        if (server.isComplete()) {
            principal = KafkaPrincipal.user(server.getAuthorizationID());
            state = State.COMPLETE;
            dispose();
        }
        SaslAuthenticateResponseData data = new SaslAuthenticateResponseData()
                .setErrorCode(Errors.NONE.code())
                .setAuthBytes(challenge == null ? new byte[0] : challenge)
                .setSessionLifetimeMs(0L);
        return new Step(new SaslAuthenticateResponse(data), false);
    }

    private Step failed(String message) {
        state = State.FAILED;
        dispose();
        SaslAuthenticateResponseData data = new SaslAuthenticateResponseData()
                .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                .setErrorMessage(message)
                .setAuthBytes(new byte[0]);
        return new Step(new SaslAuthenticateResponse(data), true);
    }

    private Step illegalState(AbstractRequest request, String message) {
        state = State.FAILED;
        dispose();
        return new Step(request.getErrorResponse(new IllegalSaslStateException(message)), true);
    }

    private static Step closeSilently() {
        return new Step(null, true);
    }

    private void dispose() {
        if (server != null) {
            try {
                server.dispose();
            } catch (SaslException e) {
                // Nothing held that needs releasing for PLAIN and SCRAM.
            }
            server = null;
        }
    }

    /** Answers the mechanisms' callbacks from the credential lookup. */
    private final class Callbacks implements CallbackHandler {
        private final String mechanism;

        Callbacks(String mechanism) {
            this.mechanism = mechanism;
        }

        @Override
        public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
            String user = null;
            for (Callback callback : callbacks) {
                if (callback instanceof NameCallback name) {
                    user = name.getDefaultName();
                } else if (callback instanceof PlainAuthenticateCallback plain) {
                    plain.authenticated(user != null && settings.credentials().checkPlain(user, plain.password()));
                } else if (callback instanceof DelegationTokenCredentialCallback) {
                    // Delegation tokens are not offered: the token owner stays unknown and the exchange fails.
                } else if (callback instanceof ScramCredentialCallback scram) {
                    String name = user;
                    settings.credentials()
                            .scram(mechanism, name)
                            .ifPresent(c -> scram.scramCredential(
                                    new ScramCredential(c.salt(), c.storedKey(), c.serverKey(), c.iterations())));
                } else {
                    throw new UnsupportedCallbackException(callback);
                }
            }
        }
    }
}
