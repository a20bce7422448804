package io.tributary.coordinator.api;

import io.tributary.coordinator.metadata.MetadataException;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.ServletRequestBindingException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every control-plane error becomes RFC 9457 {@code application/problem+json} with a stable type
 * ({@link ControlProblem}); 503s carry {@code Retry-After}; a follower's answer to a write is 307 to
 * the leader. Only a defect is a 500, logged with its stack trace, which never reaches the client.
 */
@RestControllerAdvice
public class ControlProblemAdvice {

    private static final Logger log = LoggerFactory.getLogger(ControlProblemAdvice.class);

    private final JsonMapper json;
    private final String retryAfterSeconds;

    public ControlProblemAdvice(JsonMapper json, ControlPlaneProperties properties) {
        this.json = json;
        this.retryAfterSeconds = Long.toString(properties.retryAfter().toSeconds());
    }

    @ExceptionHandler(MetadataException.class)
    ResponseEntity<byte[]> metadata(MetadataException e, HttpServletRequest request) {
        return answer(ControlProblem.of(e), e.getMessage(), request);
    }

    @ExceptionHandler(ControlProblemException.class)
    ResponseEntity<byte[]> control(ControlProblemException e, HttpServletRequest request) {
        return answer(e.type(), e.getMessage(), request);
    }

    @ExceptionHandler(NotLeaderException.class)
    ResponseEntity<Void> notLeader(NotLeaderException e) {
        return ResponseEntity.status(307).location(e.location()).build();
    }

    /** The write may or may not have been committed (leadership moved, a timeout): retry it. */
    @ExceptionHandler(IOException.class)
    ResponseEntity<byte[]> notCommitted(IOException e, HttpServletRequest request) {
        return answer(
                ControlProblem.NOT_COMMITTED,
                "the metadata write was not confirmed (" + e.getMessage() + "); retry it",
                request);
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<byte[]> unreadable(HttpMessageNotReadableException e, HttpServletRequest request) {
        return answer(
                ControlProblem.MALFORMED_JSON,
                "the body is not the JSON this resource takes: "
                        + firstLine(e.getMostSpecificCause().getMessage()),
                request);
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    ResponseEntity<byte[]> unsupported(HttpMediaTypeNotSupportedException e, HttpServletRequest request) {
        return answer(
                ControlProblem.UNSUPPORTED_MEDIA_TYPE,
                "Content-Type " + e.getContentType() + " is not accepted here; use application/json",
                request);
    }

    @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
    ResponseEntity<byte[]> notAcceptable(HttpMediaTypeNotAcceptableException e, HttpServletRequest request) {
        return answer(ControlProblem.NOT_ACCEPTABLE, "this resource answers in application/json only", request);
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    ResponseEntity<byte[]> method(HttpRequestMethodNotSupportedException e, HttpServletRequest request) {
        ResponseEntity<byte[]> answer =
                answer(ControlProblem.METHOD_NOT_ALLOWED, e.getMethod() + " is not allowed here", request);
        HttpHeaders headers = new HttpHeaders();
        headers.putAll(answer.getHeaders());
        if (e.getSupportedHttpMethods() != null) {
            headers.setAllow(e.getSupportedHttpMethods());
        }
        return new ResponseEntity<>(answer.getBody(), headers, answer.getStatusCode());
    }

    @ExceptionHandler({NoResourceFoundException.class, NoHandlerFoundException.class})
    ResponseEntity<byte[]> notFound(Exception e, HttpServletRequest request) {
        return answer(ControlProblem.NOT_FOUND, "no resource at " + request.getRequestURI(), request);
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<byte[]> typeMismatch(MethodArgumentTypeMismatchException e, HttpServletRequest request) {
        return answer(
                ControlProblem.INVALID_PARAMETER,
                "%s must be a whole number, got '%s'".formatted(e.getName(), e.getValue()),
                request);
    }

    @ExceptionHandler({MissingServletRequestParameterException.class, ServletRequestBindingException.class})
    ResponseEntity<byte[]> binding(ServletRequestBindingException e, HttpServletRequest request) {
        return answer(ControlProblem.INVALID_PARAMETER, e.getMessage(), request);
    }

    /** The client left during a long poll: nothing to answer, nothing to log. */
    @ExceptionHandler(AsyncRequestNotUsableException.class)
    void clientGone(AsyncRequestNotUsableException e, HttpServletRequest request) {
        log.debug("client left during {} {}: {}", request.getMethod(), request.getRequestURI(), e.getMessage());
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<byte[]> defect(Exception e, HttpServletRequest request) {
        log.error("defect while serving {} {}", request.getMethod(), request.getRequestURI(), e);
        return answer(ControlProblem.INTERNAL_ERROR, "the coordinator failed; the failure is logged", request);
    }

    ResponseEntity<byte[]> answer(ControlProblem type, String detail, HttpServletRequest request) {
        ResponseEntity.BodyBuilder answer =
                ResponseEntity.status(type.status()).contentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (type.retryable()) {
            answer.header(HttpHeaders.RETRY_AFTER, retryAfterSeconds);
        }
        return answer.body(json.writeValueAsBytes(problem(type, detail, request.getRequestURI())));
    }

    static Map<String, Object> problem(ControlProblem type, String detail, String instance) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type.uri().toString());
        body.put("title", type.title());
        body.put("status", type.status());
        body.put("detail", detail);
        body.put("instance", instance);
        return body;
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "unreadable";
        }
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }
}
