package io.tributary.coordinator.api;

import io.tributary.common.security.internal.ControlPlaneSignature;
import io.tributary.coordinator.security.BrokerSigningSecrets;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Lets a control-plane call through only when a broker signed it ({@link ControlPlaneSignature}):
 * on when {@code tributary.coordinator.control.secret-file} is set. Runs after {@link
 * BodyLimitFilter} (the body is bounded and has a declared length), reads the body to check its
 * hash, and hands the controller the same bytes and the caller's broker id ({@link #callerOf}).
 * During a rotation of the cluster secret ({@code previous-secret-file}) a call signed under the
 * previous secret is let through too, and the secret each broker signs with is recorded ({@link
 * BrokerSigningSecrets}) for its internal login's credential.
 *
 * <p>Answers: no or a malformed {@code Authorization}, a wrong signature, a time outside the allowed
 * skew: 401 {@code unauthenticated} with {@code WWW-Authenticate: Tributary-Broker}. Every refusal is
 * written to the audit log ({@code io.tributary.security.audit}) with the caller's address.
 */
public class BrokerAuthFilter extends OncePerRequestFilter {

    /** The request attribute holding the authenticated broker id (an {@link Integer}). */
    static final String CALLER = BrokerAuthFilter.class.getName() + ".broker";

    private static final Logger audit = LoggerFactory.getLogger("io.tributary.security.audit");

    private final ControlPlaneSignature.Verifier verifier;
    private final BrokerSigningSecrets signers;
    private final JsonMapper json;

    /**
     * @param verifier checks signatures under the current secret and, during a rotation, the
     *     previous one
     * @param signers where the secret each verified call was signed with is recorded
     */
    public BrokerAuthFilter(ControlPlaneSignature.Verifier verifier, BrokerSigningSecrets signers, JsonMapper json) {
        this.verifier = Objects.requireNonNull(verifier, "verifier");
        this.signers = Objects.requireNonNull(signers, "signers");
        this.json = Objects.requireNonNull(json, "json");
    }

    /**
     * The broker that signed {@code request}, or null when the control plane does not authenticate
     * calls (no secret configured).
     */
    static Integer callerOf(HttpServletRequest request) {
        return (Integer) request.getAttribute(CALLER);
    }

    /**
     * Refuses a call about broker {@code brokerId} signed by another broker: a broker acts for its
     * own id only (registers, heartbeats, stops, leads partitions, takes producer ids as itself).
     */
    static void requireCaller(HttpServletRequest request, int brokerId) {
        Integer caller = callerOf(request);
        if (caller != null && caller != brokerId) {
            audit.warn(
                    "DENIED control plane: broker {} from {} acted for broker {} ({} {})",
                    caller,
                    request.getRemoteAddr(),
                    brokerId,
                    request.getMethod(),
                    request.getRequestURI());
            throw new ControlProblemException(
                    ControlProblem.FORBIDDEN,
                    "broker %d may act only for itself, not for broker %d".formatted(caller, brokerId));
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        // BodyLimitFilter ran first: the length is declared and bounded.
        byte[] body = request.getInputStream().readAllBytes();
        String query = request.getQueryString();
        String pathAndQuery = query == null ? request.getRequestURI() : request.getRequestURI() + "?" + query;
        ControlPlaneSignature.Caller caller;
        try {
            caller = verifier.authenticate(request.getHeader("Authorization"), request.getMethod(), pathAndQuery, body);
        } catch (ControlPlaneSignature.Refused e) {
            audit.warn(
                    "DENIED control plane: unauthenticated call from {} ({} {}): {}",
                    request.getRemoteAddr(),
                    request.getMethod(),
                    request.getRequestURI(),
                    e.getMessage());
            response.setStatus(ControlProblem.UNAUTHENTICATED.status());
            response.setHeader("WWW-Authenticate", ControlPlaneSignature.SCHEME);
            response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
            response.getOutputStream()
                    .write(json.writeValueAsBytes(ControlProblemAdvice.problem(
                            ControlProblem.UNAUTHENTICATED, e.getMessage(), request.getRequestURI())));
            return;
        }
        signers.signed(caller);
        request.setAttribute(CALLER, caller.brokerId());
        chain.doFilter(new ReadBody(request, body), response);
    }

    /** The request with its body already read. */
    private static final class ReadBody extends HttpServletRequestWrapper {
        private final byte[] body;

        ReadBody(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("the control plane reads bodies blocking");
                }

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }
            };
        }

        @Override
        public java.io.BufferedReader getReader() {
            return new java.io.BufferedReader(
                    new java.io.InputStreamReader(getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
        }
    }
}
