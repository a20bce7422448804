package io.tributary.gateway.app;

import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Bodies stay bytes. By default the servlet container parses an {@code
 * application/x-www-form-urlencoded} POST body into request parameters as soon as any parameter
 * (such as {@code ?acks=}) is read, which would leave a webhook's form body empty by the time it is
 * produced as a raw record. The gateway takes no form posts, so it turns that parsing off.
 */
@Configuration(proxyBeanMethods = false)
class RawBodyConfiguration {

    @Bean
    TomcatConnectorCustomizer noFormBodyParsing() {
        return connector -> connector.setParseBodyMethods("");
    }
}
