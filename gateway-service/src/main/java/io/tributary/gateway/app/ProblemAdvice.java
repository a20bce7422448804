package io.tributary.gateway.app;

import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.problem.KafkaProblems;
import io.tributary.gateway.problem.Problem;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import jakarta.servlet.http.HttpServletRequest;
import java.util.stream.Collectors;
import org.apache.kafka.common.KafkaException;
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
 * The one place where errors become HTTP answers: every one is {@code application/problem+json}
 * with a type from {@link ProblemType}; 503 and 429 carry {@code Retry-After}. Client mistakes that
 * Spring detects before a controller runs (unreadable JSON, wrong content type, a parameter of the
 * wrong type, an unknown path) are named here too, so none of them is a 500. Only a defect is a 500,
 * and it is logged with its stack trace (which never reaches the client).
 */
@RestControllerAdvice
class ProblemAdvice {

    private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);
    static final MediaType PROBLEM_JSON = MediaType.APPLICATION_PROBLEM_JSON;
    private static final String RETRY_AFTER_SECONDS = "1";

    private final GatewayMetrics metrics;
    private final JsonMapper json;

    ProblemAdvice(GatewayMetrics metrics, JsonMapper json) {
        this.metrics = metrics;
        this.json = json;
    }

    @ExceptionHandler(ProblemException.class)
    ResponseEntity<byte[]> problem(ProblemException e, HttpServletRequest request) {
        return answer(e, request);
    }

    @ExceptionHandler(KafkaException.class)
    ResponseEntity<byte[]> kafka(KafkaException e, HttpServletRequest request) {
        return answer(KafkaProblems.toProblem(e), request);
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<byte[]> unreadable(HttpMessageNotReadableException e, HttpServletRequest request) {
        String why = e.getMostSpecificCause().getMessage();
        return answer(
                new ProblemException(
                        ProblemType.MALFORMED_JSON, "The body is not the JSON this resource takes: " + firstLine(why)),
                request);
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    ResponseEntity<byte[]> unsupported(HttpMediaTypeNotSupportedException e, HttpServletRequest request) {
        String supported =
                e.getSupportedMediaTypes().stream().map(MediaType::toString).collect(Collectors.joining(", "));
        return answer(
                new ProblemException(
                        ProblemType.UNSUPPORTED_MEDIA_TYPE,
                        "Content-Type %s is not accepted here; use %s.".formatted(e.getContentType(), supported)),
                request);
    }

    @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
    ResponseEntity<byte[]> notAcceptable(HttpMediaTypeNotAcceptableException e, HttpServletRequest request) {
        return answer(
                new ProblemException(ProblemType.NOT_ACCEPTABLE, "This resource answers in application/json only."),
                request);
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    ResponseEntity<byte[]> method(HttpRequestMethodNotSupportedException e, HttpServletRequest request) {
        ResponseEntity<byte[]> answer = answer(
                new ProblemException(
                        ProblemType.METHOD_NOT_ALLOWED, "%s is not allowed here.".formatted(e.getMethod())),
                request);
        HttpHeaders headers = new HttpHeaders();
        headers.putAll(answer.getHeaders());
        if (e.getSupportedHttpMethods() != null) {
            // in name order: the framework's set has none, so each process would list them its own way
            headers.setAllow(e.getSupportedHttpMethods().stream()
                    .sorted(java.util.Comparator.comparing(org.springframework.http.HttpMethod::name))
                    .collect(Collectors.toCollection(java.util.LinkedHashSet::new)));
        }
        return new ResponseEntity<>(answer.getBody(), headers, answer.getStatusCode());
    }

    @ExceptionHandler({NoResourceFoundException.class, NoHandlerFoundException.class})
    ResponseEntity<byte[]> notFound(Exception e, HttpServletRequest request) {
        return answer(
                new ProblemException(ProblemType.NOT_FOUND, "No resource at %s.".formatted(request.getRequestURI())),
                request);
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<byte[]> typeMismatch(MethodArgumentTypeMismatchException e, HttpServletRequest request) {
        return answer(
                ProblemException.invalidParameter(
                        e.getName(), "%s must be a whole number, got '%s'.".formatted(e.getName(), e.getValue())),
                request);
    }

    @ExceptionHandler(MissingServletRequestParameterException.class)
    ResponseEntity<byte[]> missing(MissingServletRequestParameterException e, HttpServletRequest request) {
        return answer(
                ProblemException.invalidParameter(
                        e.getParameterName(), "The query parameter %s is required.".formatted(e.getParameterName())),
                request);
    }

    @ExceptionHandler(ServletRequestBindingException.class)
    ResponseEntity<byte[]> binding(ServletRequestBindingException e, HttpServletRequest request) {
        return answer(new ProblemException(ProblemType.INVALID_PARAMETER, e.getMessage()), request);
    }

    /** The client went away mid-answer (an NDJSON stream, a long poll): nothing to answer, nothing to log. */
    @ExceptionHandler(AsyncRequestNotUsableException.class)
    void clientGone(AsyncRequestNotUsableException e, HttpServletRequest request) {
        log.debug("Client left during {} {}: {}", request.getMethod(), request.getRequestURI(), e.getMessage());
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<byte[]> defect(Exception e, HttpServletRequest request) {
        log.error("Defect while serving {} {}", request.getMethod(), request.getRequestURI(), e);
        return answer(
                new ProblemException(ProblemType.INTERNAL_ERROR, "The gateway failed; the failure is logged."),
                request);
    }

    private ResponseEntity<byte[]> answer(ProblemException e, HttpServletRequest request) {
        ProblemType type = e.type();
        metrics.error(type);
        if (type.status() >= 500 && type != ProblemType.INTERNAL_ERROR) {
            log.warn("{} {}: {} ({})", request.getMethod(), request.getRequestURI(), type.slug(), e.getMessage());
        }
        Problem body = Problem.of(e);
        Problem withInstance = new Problem(
                body.type(),
                body.title(),
                body.status(),
                body.detail(),
                request.getRequestURI(),
                body.parameter(),
                body.index(),
                body.logStartOffset());
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(type.status()).contentType(PROBLEM_JSON);
        if (type.retryable()) {
            answer.header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
        }
        return answer.body(json.writeValueAsBytes(withInstance));
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "unreadable.";
        }
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }
}
