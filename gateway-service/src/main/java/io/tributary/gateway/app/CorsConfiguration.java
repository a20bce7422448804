package io.tributary.gateway.app;

import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.problem.Problem;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.produce.ProduceController;
import java.io.IOException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.cors.DefaultCorsProcessor;
import org.springframework.web.servlet.config.annotation.CorsRegistration;
import org.springframework.web.servlet.config.annotation.CorsRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.handler.AbstractHandlerMapping;
import tools.jackson.databind.json.JsonMapper;

/**
 * CORS for {@code /v1/**}: the origins of {@code tributary.gateway.cors.allowed-origins} may call
 * every method, send any header (a preflight is answered for them, cached {@code max-age}) and read
 * {@code Retry-After}, {@code Location} and {@code Idempotent-Replayed}; no credentials. A cross-origin request from an origin
 * not allowed, when some are configured, is 403 {@code origin-not-allowed} (problem+json, like every
 * error); with none configured, nothing is added and browsers keep other origins out themselves.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(CorsProperties.class)
class CorsConfiguration implements WebMvcConfigurer {

    private final CorsProperties cors;

    CorsConfiguration(CorsProperties cors) {
        this.cors = cors;
    }

    @Override
    public void addCorsMappings(CorsRegistry registry) {
        if (cors.allowedOrigins().isEmpty()) {
            return;
        }
        CorsRegistration v1 = registry.addMapping("/v1/**");
        if (cors.allowedOrigins().contains("*")) {
            v1.allowedOriginPatterns("*");
        } else {
            v1.allowedOrigins(cors.allowedOrigins().toArray(String[]::new));
        }
        v1.allowedMethods("GET", "HEAD", "POST", "DELETE")
                .allowedHeaders("*")
                .exposedHeaders(HttpHeaders.RETRY_AFTER, HttpHeaders.LOCATION, ProduceController.REPLAYED_HEADER)
                .allowCredentials(false)
                .maxAge(cors.maxAge().toSeconds());
    }

    /** Refusals of cross-origin requests as problem+json instead of Spring's plain text. */
    @Bean
    static BeanPostProcessor problemCorsRefusals(
            ObjectProvider<GatewayMetrics> metrics, ObjectProvider<JsonMapper> json) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof AbstractHandlerMapping mapping) {
                    mapping.setCorsProcessor(new ProblemCorsProcessor(metrics, json));
                }
                return bean;
            }
        };
    }

    /** Spring's CORS checks; a refusal answers 403 {@code origin-not-allowed}. */
    static final class ProblemCorsProcessor extends DefaultCorsProcessor {

        private final ObjectProvider<GatewayMetrics> metrics;
        private final ObjectProvider<JsonMapper> json;

        ProblemCorsProcessor(ObjectProvider<GatewayMetrics> metrics, ObjectProvider<JsonMapper> json) {
            this.metrics = metrics;
            this.json = json;
        }

        @Override
        protected void rejectRequest(ServerHttpResponse response) throws IOException {
            ProblemType type = ProblemType.ORIGIN_NOT_ALLOWED;
            metrics.getObject().error(type);
            response.setStatusCode(HttpStatus.FORBIDDEN);
            response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
            response.getBody()
                    .write(json.getObject()
                            .writeValueAsBytes(Problem.of(
                                    type,
                                    "This origin may not call the API from a browser; the gateway's"
                                            + " tributary.gateway.cors.allowed-origins lists those that may.")));
            response.flush();
        }
    }
}
