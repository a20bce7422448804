package io.tributary.coordinator.app;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The coordinator's identity, storage and Raft peers ({@code tributary.coordinator.*}).
 *
 * @param id this coordinator's index among {@code peers}
 * @param dataDir where the Raft log and snapshots live
 * @param raftHost the address the Raft transport binds
 * @param raftPort the Raft transport's port
 * @param peers every voter's Raft address ({@code host:port}), in id order; 1 or 3 of them
 * @param httpPeers every voter's control-plane (HTTP) address ({@code host:port}), in the same
 *     order as {@code peers}: a follower redirects writes to the leader's
 * @param kafkaPeers every voter's advertised Kafka listener ({@code host:port}), in the same order
 *     as {@code peers}: FindCoordinator (on coordinators and brokers) answers with the leader's
 */
@Validated
@ConfigurationProperties("tributary.coordinator")
public record CoordinatorProperties(
        @DefaultValue("0") @Min(0) @Max(2) int id,
        @DefaultValue("data/coordinator-0") @NotNull Path dataDir,
        @DefaultValue("127.0.0.1") @NotBlank String raftHost,
        @DefaultValue("9291") @Min(0) @Max(65535) int raftPort,
        @DefaultValue("127.0.0.1:9291") @NotEmpty List<String> peers,
        @DefaultValue("127.0.0.1:8091") @NotEmpty List<String> httpPeers,
        @DefaultValue("127.0.0.1:9191") @NotEmpty List<String> kafkaPeers) {

    public CoordinatorProperties {
        peers = List.copyOf(peers);
        httpPeers = List.copyOf(httpPeers);
        kafkaPeers = List.copyOf(kafkaPeers);
        if (peers.size() != 1 && peers.size() != 3) {
            throw new IllegalArgumentException(
                    "tributary.coordinator.peers must list 1 or 3 voters, got " + peers.size());
        }
        if (id >= peers.size()) {
            throw new IllegalArgumentException(
                    "tributary.coordinator.id=%d is not an index into the %d peers".formatted(id, peers.size()));
        }
        checkAddresses("http-peers", httpPeers, peers.size());
        checkAddresses("kafka-peers", kafkaPeers, peers.size());
    }

    private static void checkAddresses(String key, List<String> addresses, int voters) {
        if (addresses.size() != voters) {
            throw new IllegalArgumentException(
                    "tributary.coordinator.%s must list one address per voter in peers (%d), got %d"
                            .formatted(key, voters, addresses.size()));
        }
        for (String p : addresses) {
            int colon = p.lastIndexOf(':');
            if (colon <= 0
                    || colon == p.length() - 1
                    || !p.substring(colon + 1).chars().allMatch(Character::isDigit)
                    || p.length() - colon - 1 > 5
                    || Integer.parseInt(p.substring(colon + 1)) > 65535) {
                throw new IllegalArgumentException(
                        "tributary.coordinator.%s entries must be host:port, got '%s'".formatted(key, p));
            }
        }
    }
}
