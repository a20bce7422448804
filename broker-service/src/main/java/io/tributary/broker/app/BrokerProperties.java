package io.tributary.broker.app;

import io.tributary.common.protocol.CoordinatorNodeIds;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The broker's identity and where it keeps data ({@code tributary.broker.*}).
 *
 * @param id the broker id, unique in the cluster (Kafka's {@code node.id}), {@code 0..999_999_999}: larger
 *     node ids name the group coordinators ({@link CoordinatorNodeIds})
 * @param dataDir where partition logs and the RocksDB index live
 * @param rack the rack or zone, for placement; empty when unknown
 * @param coordinators control-plane HTTP addresses of the coordinators ({@code host:port})
 */
@Validated
@ConfigurationProperties("tributary.broker")
public record BrokerProperties(
        @DefaultValue("0") @Min(0) @Max(CoordinatorNodeIds.MAX_BROKER_ID)
        int id,

        @DefaultValue("data/broker-0") @NotNull Path dataDir,
        @DefaultValue("") String rack,
        @DefaultValue("127.0.0.1:8091") @NotEmpty List<String> coordinators) {

    public BrokerProperties {
        coordinators = List.copyOf(coordinators);
    }
}
