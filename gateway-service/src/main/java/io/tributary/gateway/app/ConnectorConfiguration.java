package io.tributary.gateway.app;

import org.apache.coyote.ProtocolHandler;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.springframework.boot.tomcat.TomcatProtocolHandlerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Bounds on the HTTP connector's blocking I/O. A blocking write to a client that reads nothing waits
 * for the connector's connection timeout, so that is {@code tributary.gateway.write-timeout}: an SSE
 * stream whose client stopped reading is dropped then, and its slot and thread freed. Request bodies
 * get their own, longer read timeout ({@code body-read-timeout}, Tomcat's upload timeout), and
 * keep-alive keeps Tomcat's default ({@code server.tomcat.keep-alive-timeout} overrides it), so the
 * short write bound changes neither.
 */
@Configuration(proxyBeanMethods = false)
class ConnectorConfiguration {

    /** How long an idle kept-alive connection stays open (Tomcat's own default). */
    static final int KEEP_ALIVE_TIMEOUT_MS = 60_000;

    @Bean
    TomcatProtocolHandlerCustomizer<ProtocolHandler> writeTimeout(GatewayProperties gateway) {
        return handler -> {
            if (handler instanceof AbstractHttp11Protocol<?> http) {
                http.setConnectionTimeout((int) gateway.writeTimeout().toMillis());
                http.setKeepAliveTimeout(KEEP_ALIVE_TIMEOUT_MS);
                http.setDisableUploadTimeout(false);
                http.setConnectionUploadTimeout((int) gateway.bodyReadTimeout().toMillis());
            }
        };
    }
}
