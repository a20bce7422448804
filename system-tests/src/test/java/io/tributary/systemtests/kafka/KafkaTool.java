package io.tributary.systemtests.kafka;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * One of Kafka's own command-line tools ({@code kafka-consumer-groups.sh}'s {@code
 * ConsumerGroupCommand}, {@code kafka-configs.sh}'s {@code ConfigCommand}...), from the Kafka 4.4 jars
 * of {@code kafka-peer}, run in a child JVM against a target's bootstrap servers.
 */
final class KafkaTool {

    /** How long one run may take. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private KafkaTool() {}

    /**
     * What a run printed (stdout and stderr, without blank lines and logging noise: SLF4J's and
     * {@code WARN} lines) and its exit code, empty when it did not finish within {@link #TIMEOUT}
     * (then it was killed).
     */
    record Run(List<String> lines, OptionalInt exit) {
        /** The lines, then {@code exit <code>}, or a line saying the run did not finish. */
        List<String> withExit() {
            if (exit.isEmpty()) {
                return List.of("the command did not finish within " + TIMEOUT);
            }
            List<String> all = new ArrayList<>(lines);
            all.add("exit " + exit.getAsInt());
            return all;
        }
    }

    /** Runs {@code mainClass --bootstrap-server <target> args}. */
    static Run run(String mainClass, KafkaTarget target, List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                kafkaLibs().toAbsolutePath() + File.separator + "*",
                mainClass,
                "--bootstrap-server",
                target.bootstrapServers()));
        command.addAll(args);
        Path output = Files.createTempFile("kafka-tool", ".out");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Run(List.of(), OptionalInt.empty());
            }
            List<String> lines = new ArrayList<>();
            for (String raw : Files.readAllLines(output, StandardCharsets.UTF_8)) {
                if (!raw.isBlank() && !raw.contains("SLF4J") && !raw.startsWith("WARN")) {
                    lines.add(raw);
                }
            }
            return new Run(lines, OptionalInt.of(process.exitValue()));
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /** The Kafka jars ({@code tributary.kafka.libs}, by default kafka-peer's). */
    static Path kafkaLibs() {
        Path libs = Path.of(System.getProperty("tributary.kafka.libs", "../kafka-peer/target/kafka-libs"));
        if (!Files.isDirectory(libs)) {
            throw new IllegalStateException("No Kafka jars in " + libs.toAbsolutePath()
                    + ": build the kafka-peer module first (./mvnw -pl system-tests -am verify does).");
        }
        return libs;
    }
}
