package io.tributary.coordinator.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Bounds control-plane request bodies before anything reads them: a body must declare its length
 * ({@code Content-Length}; 411 otherwise), and that length must be at most
 * {@code tributary.coordinator.control.max-body-size} (413). Every body this API takes is small JSON,
 * so chunked uploads buy nothing and would need a counting stream to stay bounded.
 */
public class BodyLimitFilter extends OncePerRequestFilter {

    private final long maxBodyBytes;
    private final JsonMapper json;

    public BodyLimitFilter(long maxBodyBytes, JsonMapper json) {
        this.maxBodyBytes = maxBodyBytes;
        this.json = json;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long length = request.getContentLengthLong();
        boolean chunked = "chunked".equalsIgnoreCase(request.getHeader("Transfer-Encoding"));
        if (chunked) {
            reject(response, ControlProblem.LENGTH_REQUIRED, "a body must declare its Content-Length", request);
            return;
        }
        if (length > maxBodyBytes) {
            reject(
                    response,
                    ControlProblem.BODY_TOO_LARGE,
                    "the body is %d bytes; at most %d are accepted".formatted(length, maxBodyBytes),
                    request);
            return;
        }
        chain.doFilter(request, response);
    }

    private void reject(HttpServletResponse response, ControlProblem type, String detail, HttpServletRequest request)
            throws IOException {
        response.setStatus(type.status());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.getOutputStream()
                .write(json.writeValueAsBytes(ControlProblemAdvice.problem(type, detail, request.getRequestURI())));
    }
}
