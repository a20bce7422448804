package io.tributary.coordinator.app;

import io.tributary.common.security.sasl.ScramKeys;
import io.tributary.coordinator.security.ScramBootstrap;
import io.tributary.coordinator.security.ScramRules;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Kafka-side security of the coordinators ({@code tributary.coordinator.security.*}): the SCRAM
 * credential bounds ({@link ScramRules}) and a new cluster's bootstrap users ({@link ScramBootstrap}).
 *
 * @param bootstrapScramUsers users whose SCRAM credentials are written once, when the cluster's
 *     metadata is first created (Kafka's {@code kafka-storage format --add-scram}); each {@code
 *     name}, {@code password}, {@code mechanism} ({@code SCRAM-SHA-512} by default) and {@code
 *     iterations} ({@code 4096} by default). Changing the setting later writes nothing: use
 *     AlterUserScramCredentials ({@code kafka-configs.sh})
 * @param maxScramUserNameLength the longest SCRAM user name, in characters
 * @param scramMinIterations the fewest iterations of a SCRAM credential (Kafka's 4096, the least
 *     kafka-clients accept)
 * @param scramMaxIterations the most (Kafka's 16384)
 */
@Validated
@ConfigurationProperties("tributary.coordinator.security")
public record SecurityProperties(
        @DefaultValue @NotNull @Valid List<BootstrapScramUser> bootstrapScramUsers,
        @DefaultValue("1000") @Min(1) @Max(1_000_000) int maxScramUserNameLength,

        @DefaultValue("4096") @Min(ScramKeys.MIN_ITERATIONS) @Max(ScramRules.ITERATIONS_CEILING)
        int scramMinIterations,

        @DefaultValue("16384") @Min(ScramKeys.MIN_ITERATIONS) @Max(ScramRules.ITERATIONS_CEILING)
        int scramMaxIterations) {

    /**
     * One bootstrap user ({@code bootstrap-scram-users[i].*}).
     *
     * @param name the user name
     * @param password its password (keep it in a secret: an environment variable or a mounted file)
     * @param mechanism {@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}
     * @param iterations the credential's iterations
     */
    public record BootstrapScramUser(
            @NotNull String name,
            @NotNull String password,
            @DefaultValue("SCRAM-SHA-512") @NotNull String mechanism,
            @DefaultValue("4096") int iterations) {

        @Override
        public String toString() {
            return "BootstrapScramUser[name=" + name + ", mechanism=" + mechanism + "]";
        }
    }

    ScramRules scramRules(MetadataProperties metadata) {
        return new ScramRules(metadata.maxScramUsers(), maxScramUserNameLength, scramMinIterations, scramMaxIterations);
    }

    ScramBootstrap scramBootstrap(MetadataProperties metadata) {
        return new ScramBootstrap(
                bootstrapScramUsers.stream()
                        .map(u -> new ScramBootstrap.User(u.name(), u.mechanism(), u.password(), u.iterations()))
                        .toList(),
                scramRules(metadata));
    }
}
