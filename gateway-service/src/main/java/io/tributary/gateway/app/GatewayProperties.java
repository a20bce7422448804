package io.tributary.gateway.app;

import jakarta.validation.constraints.NotEmpty;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Where the gateway finds the cluster ({@code tributary.gateway.*}).
 *
 * @param bootstrapServers Kafka-protocol addresses ({@code host:port}) of Tributary brokers or of
 *     any Kafka cluster
 */
@Validated
@ConfigurationProperties("tributary.gateway")
public record GatewayProperties(
        @DefaultValue("127.0.0.1:9092") @NotEmpty List<String> bootstrapServers) {

    public GatewayProperties {
        bootstrapServers = List.copyOf(bootstrapServers);
    }
}
