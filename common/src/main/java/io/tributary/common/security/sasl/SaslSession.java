package io.tributary.common.security.sasl;

import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.oauth.OAuthBearerValidation;
import java.time.InstantSource;
import java.util.Map;
import java.util.OptionalLong;
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
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.authenticator.SaslInternalConfigs;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslServerProvider;
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
 *   <li>COMPLETE: the connection acts as {@code User:<authenticated name>}. The completing answer
 *       carries {@code session_lifetime_ms} (KIP-368, {@link #route}): the smaller of the
 *       mechanism's {@code connections.max.reauth.ms} and, for OAUTHBEARER, the time left until the
 *       token's {@code exp}; 0 when neither applies (the session never expires).
 * </ol>
 *
 * <p>Re-authentication (KIP-368), as Kafka's broker does it: on a connection whose session has an
 * expiry, a SaslHandshake starts a new exchange on the same connection (at most one per second;
 * sooner, it is answered as below), with the same mechanism (another enabled one is answered {@code
 * NONE}, then the connection closes at its SaslAuthenticate without an answer), and it must end with
 * the same principal ({@code SASL_AUTHENTICATION_FAILED}, {@code "Cannot change principals during
 * re-authentication from User.a: User.b"}, then closed). Once a session expired, any request but a
 * SaslHandshake closes the connection without an answer ({@link Route#EXPIRED}). Without an expiry,
 * SaslHandshake and SaslAuthenticate on a complete connection are answered {@code
 * ILLEGAL_SASL_STATE} and the connection stays open, as Kafka's request handlers answer them.
 *
 * <p>The mechanisms are kafka-clients' own server implementations (registered as JCA providers once
 * per JVM); this class feeds them credentials from the {@link CredentialLookup}, and OAUTHBEARER
 * tokens to the listener's {@link OAuthBearerValidation}. Not thread-safe: one per connection, used
 * by its thread only.
 */
public final class SaslSession {

    static {
        PlainSaslServerProvider.initialize();
        ScramSaslServerProvider.initialize();
        OAuthBearerSaslServerProvider.initialize();
    }

    /** The least time between two re-authentications' starts, as Kafka's. */
    static final long MIN_REAUTH_INTERVAL_MS = 1000;

    /** Where the exchange is. */
    public enum State {
        HANDSHAKE,
        AUTHENTICATE,
        /** A re-authentication asked for another mechanism: the next request closes the connection. */
        REAUTH_BAD_MECHANISM,
        COMPLETE,
        FAILED
    }

    /** Where a request goes ({@link #route}). */
    public enum Route {
        /** To {@link #handle}: a step of the exchange, or the answer to a SASL request out of turn. */
        EXCHANGE,
        /** To the listener's handlers (or its own ApiVersions). */
        SERVE,
        /** Nowhere: the session expired; close the connection without an answer. */
        EXPIRED
    }

    /** How a step ended a re-authentication, for the listener's counters. */
    public enum Reauthentication {
        NONE,
        SUCCEEDED,
        FAILED
    }

    /**
     * What to do with a request during the exchange.
     *
     * @param response the answer to send, or null to close without one
     * @param closeAfter whether to close the connection once the answer is sent
     * @param reauthentication whether this step ended a re-authentication, and how
     */
    public record Step(AbstractResponse response, boolean closeAfter, Reauthentication reauthentication) {

        public Step(AbstractResponse response, boolean closeAfter) {
            this(response, closeAfter, Reauthentication.NONE);
        }
    }

    /** The session a re-authentication replaces. */
    private record Previous(String mechanism, KafkaPrincipal principal) {}

    private final SaslSettings settings;
    private final String serverName;
    private final InstantSource clock;
    private State state = State.HANDSHAKE;
    private String mechanism;
    private SaslServer server;
    private KafkaPrincipal principal;
    /** Set while re-authenticating. */
    private Previous previous;
    /** When the session ends (epoch ms), or null when it does not. */
    private Long sessionExpiresAtMs;
    /** When the last re-authentication started (epoch ms), or null. */
    private Long lastReauthStartMs;

    /**
     * @param serverName the host name the server is reached at (used by mechanisms that bind to it;
     *     PLAIN and SCRAM do not)
     */
    public SaslSession(SaslSettings settings, String serverName) {
        this(settings, serverName, InstantSource.system());
    }

    /** With {@code clock} for session expiry and token validity. */
    public SaslSession(SaslSettings settings, String serverName, InstantSource clock) {
        this.settings = settings;
        this.serverName = serverName;
        this.clock = clock;
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

    /** When the session ends (epoch ms), or empty when it does not or is not complete. */
    public OptionalLong sessionExpiresAtMs() {
        return sessionExpiresAtMs == null ? OptionalLong.empty() : OptionalLong.of(sessionExpiresAtMs);
    }

    /**
     * Where {@code request} goes. Before the exchange completes: ApiVersions before the handshake is
     * served, anything else is a step of the exchange. Once complete: a SaslHandshake starts a
     * re-authentication when the session has an expiry and none started in the last second; else a
     * request on an expired session closes the connection; else SaslHandshake and SaslAuthenticate
     * are answered by {@link #handle} and the rest served.
     */
    public Route route(AbstractRequest request) {
        if (state != State.COMPLETE) {
            return state == State.HANDSHAKE && previous == null && request instanceof ApiVersionsRequest
                    ? Route.SERVE
                    : Route.EXCHANGE;
        }
        long now = clock.millis();
        if (request instanceof SaslHandshakeRequest
                && sessionExpiresAtMs != null
                && (lastReauthStartMs == null || now - lastReauthStartMs >= MIN_REAUTH_INTERVAL_MS)) {
            lastReauthStartMs = now;
            previous = new Previous(mechanism, principal);
            state = State.HANDSHAKE;
            return Route.EXCHANGE;
        }
        if (sessionExpiresAtMs != null && now > sessionExpiresAtMs) {
            return Route.EXPIRED;
        }
        return request instanceof SaslHandshakeRequest || request instanceof SaslAuthenticateRequest
                ? Route.EXCHANGE
                : Route.SERVE;
    }

    /**
     * The step for a request {@link #route} sent here: an answer and whether to close after it, or
     * no answer and close.
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
            case REAUTH_BAD_MECHANISM -> {
                state = State.FAILED;
                yield new Step(null, true, Reauthentication.FAILED);
            }
            case COMPLETE -> outOfTurn(request);
            case FAILED -> closeSilently();
        };
    }

    /** Kafka's request handlers' answers to SASL requests on an authenticated connection; it stays open. */
    private static Step outOfTurn(AbstractRequest request) {
        if (request instanceof SaslHandshakeRequest) {
            return new Step(
                    new SaslHandshakeResponse(
                            new SaslHandshakeResponseData().setErrorCode(Errors.ILLEGAL_SASL_STATE.code())),
                    false);
        }
        return new Step(
                new SaslAuthenticateResponse(new SaslAuthenticateResponseData()
                        .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                        .setErrorMessage("SaslAuthenticate request received after successful authentication")
                        .setAuthBytes(new byte[0])),
                false);
    }

    private Step handshake(SaslHandshakeRequest request) {
        String requested = request.data().mechanism();
        if (!settings.enabledMechanisms().contains(requested)) {
            state = State.FAILED;
            SaslHandshakeResponseData data = new SaslHandshakeResponseData()
                    .setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())
                    .setMechanisms(settings.enabledMechanisms());
            return new Step(new SaslHandshakeResponse(data), true, reauthenticationEnd(Reauthentication.FAILED));
        }
        if (previous != null && !previous.mechanism().equals(requested)) {
            // Kafka accepts the handshake, then closes at the next request without an answer.
            state = State.REAUTH_BAD_MECHANISM;
            return new Step(
                    new SaslHandshakeResponse(new SaslHandshakeResponseData()
                            .setErrorCode(Errors.NONE.code())
                            .setMechanisms(settings.enabledMechanisms())),
                    false);
        }
        try {
            server = Sasl.createSaslServer(requested, "kafka", serverName, Map.of(), callbacks(requested));
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
            return failed("Authentication failed during " + (previous == null ? "" : "re-") + "authentication"
                    + " due to invalid credentials with SASL mechanism " + mechanism);
        }
        long sessionLifetimeMs = 0L;
        Reauthentication reauthentication = Reauthentication.NONE;
        if (server.isComplete()) {
            KafkaPrincipal authenticated = KafkaPrincipal.user(server.getAuthorizationID());
            if (previous != null && !previous.principal().equals(authenticated)) {
                return failed("Cannot change principals during re-authentication from %s.%s: %s.%s"
                        .formatted(
                                previous.principal().type(),
                                previous.principal().name(),
                                authenticated.type(),
                                authenticated.name()));
            }
            principal = authenticated;
            sessionLifetimeMs = startSession();
            state = State.COMPLETE;
            reauthentication = reauthenticationEnd(Reauthentication.SUCCEEDED);
            dispose();
        }
        SaslAuthenticateResponseData data = new SaslAuthenticateResponseData()
                .setErrorCode(Errors.NONE.code())
                .setAuthBytes(challenge == null ? new byte[0] : challenge)
                .setSessionLifetimeMs(sessionLifetimeMs);
        return new Step(new SaslAuthenticateResponse(data), false, reauthentication);
    }

    /**
     * Sets when the session just completed ends, as Kafka computes it: the smaller of the
     * mechanism's {@code connections.max.reauth.ms} (when positive) and the time left on the
     * credential (an OAUTHBEARER token's {@code exp}), never negative. Returns that lifetime, or 0
     * when neither applies (no expiry).
     */
    private long startSession() {
        long now = clock.millis();
        Object credentialExpiry =
                server.getNegotiatedProperty(SaslInternalConfigs.CREDENTIAL_LIFETIME_MS_SASL_NEGOTIATED_PROPERTY_KEY);
        long maxReauthMs = settings.maxReauth(mechanism).toMillis();
        Long lifetimeMs = null;
        if (credentialExpiry instanceof Long expiresAtMs) {
            lifetimeMs = maxReauthMs > 0 ? Math.min(expiresAtMs - now, maxReauthMs) : expiresAtMs - now;
        } else if (maxReauthMs > 0) {
            lifetimeMs = maxReauthMs;
        }
        if (lifetimeMs == null) {
            sessionExpiresAtMs = null;
            return 0L;
        }
        long lifetime = Math.max(0L, lifetimeMs);
        sessionExpiresAtMs = now + lifetime;
        return lifetime;
    }

    /** {@code outcome} when a re-authentication is ending, NONE otherwise; ends it. */
    private Reauthentication reauthenticationEnd(Reauthentication outcome) {
        if (previous == null) {
            return Reauthentication.NONE;
        }
        previous = null;
        return outcome;
    }

    private Step failed(String message) {
        state = State.FAILED;
        dispose();
        SaslAuthenticateResponseData data = new SaslAuthenticateResponseData()
                .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                .setErrorMessage(message)
                .setAuthBytes(new byte[0]);
        return new Step(new SaslAuthenticateResponse(data), true, reauthenticationEnd(Reauthentication.FAILED));
    }

    private Step illegalState(AbstractRequest request, String message) {
        state = State.FAILED;
        dispose();
        return new Step(
                request.getErrorResponse(new IllegalSaslStateException(message)),
                true,
                reauthenticationEnd(Reauthentication.FAILED));
    }

    /** The callbacks of {@code requested}: the token validator for OAUTHBEARER, credentials else. */
    private CallbackHandler callbacks(String requested) {
        return requested.equals(SaslSettings.OAUTHBEARER)
                ? settings.oauthBearer()
                        .map(OAuthBearerValidation::new)
                        .orElseThrow(() -> new IllegalStateException("OAUTHBEARER without a validator"))
                : new Callbacks(requested);
    }

    private Step closeSilently() {
        return new Step(null, true, reauthenticationEnd(Reauthentication.FAILED));
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
