package io.tributary.gateway.app;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The title and description of the contract springdoc serves at {@code /v3/api-docs}. */
@Configuration(proxyBeanMethods = false)
class OpenApiConfiguration {

    @Bean
    OpenAPI tributaryOpenApi(ObjectProvider<BuildProperties> build) {
        String version =
                build.getIfAvailable() == null ? "dev" : build.getIfAvailable().getVersion();
        return new OpenAPI()
                .info(new Info()
                        .title("Tributary HTTP API")
                        .version(version)
                        .description("Produce events over HTTP and consume them by long-poll or as Server-Sent"
                                + " Events, in front of a Tributary (or any Kafka) cluster.")
                        .license(new License().name("Apache-2.0")));
    }
}
