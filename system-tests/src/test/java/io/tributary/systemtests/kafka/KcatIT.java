package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential: kcat (librdkafka, the Debian package {@code kcat} that {@code bin/test} installs)
 * against each target: {@code -L} lists the topic with its partitions, {@code -P} produces keyed
 * lines (librdkafka's own partitioner places them) and unkeyed lines into partition 0, {@code -C -o
 * beginning -e} consumes them back. What kcat printed, normalised (the topic's name, broker ids),
 * is written down record by record ({@code partition offset key value}), and must be what it prints
 * against Apache Kafka ({@link Differential}). A missing kcat fails the tests, naming {@code bin/test}.
 */
@OnSharedTargets
class KcatIT {

    private static final int PARTITIONS = 3;
    private static final int LINES = 500;

    @TempDir
    static Path work;

    private static String kcat;

    @BeforeAll
    static void findKcat() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "kcat");
            if (Files.isExecutable(candidate)) {
                kcat = candidate.toString();
                return;
            }
        }
        fail("kcat is not installed: run bin/test, which installs the Debian package kcat "
                + "(or: apt-get install -y --no-install-recommends kcat)");
    }

    @Test
    void metadataProduceAndConsumeAsAgainstKafka() {
        Differential.assertSameOutcome(KcatIT::metadataProduceAndConsume);
    }

    private static void metadataProduceAndConsume(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        KafkaTargets.Kind kind = target.kind();
        String topic = Clients.uniqueTopic("kcat");
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, PARTITIONS);
        }

        String metadata = kcat(kind, null, "-L", "-t", topic);
        assertThat(metadata)
                .contains("topic \"" + topic + "\" with " + PARTITIONS + " partitions:")
                .contains(target.brokerCount() + " brokers:");
        // The cluster's default replication factor, led by a live broker, in sync but for a stopped one.
        for (int p = 0; p < PARTITIONS; p++) {
            Matcher line = Pattern.compile("partition " + p + ", leader (\\d+), replicas: ([\\d,]+), isrs: ([\\d,]+)")
                    .matcher(metadata);
            assertThat(line.find()).as("partition %d in:%n%s", p, metadata).isTrue();
            List<Integer> replicas = ids(line.group(2));
            assertThat(replicas).as(line.group()).hasSize(target.defaultReplicationFactor());
            assertThat(Integer.parseInt(line.group(1)))
                    .as(line.group())
                    .isIn(target.brokerPorts().keySet());
            assertThat(ids(line.group(3)))
                    .as(line.group())
                    .containsExactlyInAnyOrderElementsOf(replicas.stream()
                            .filter(r -> !target.stoppedBrokers().contains(r))
                            .toList());
            // Normalised: the replication factor is the cluster's default, which differs by target.
            outcome.add(
                    "-L partition " + p,
                    "leader a live replica " + replicas.contains(Integer.parseInt(line.group(1)))
                            + ", replicas = the default replication factor "
                            + (replicas.size() == target.defaultReplicationFactor())
                            + ", isrs = the live replicas");
        }
        outcome.add("-L topic", metadata.contains("topic \"" + topic + "\" with " + PARTITIONS + " partitions:"));

        List<String> lines =
                IntStream.range(0, LINES).mapToObj(i -> "line-" + i).toList();
        Path input = work.resolve(kind + "-lines.txt");
        Files.write(input, lines, StandardCharsets.UTF_8);
        // Keyed lines (key:value), so the partitioner spreads them; all into partition 0 in order too.
        Path keyed = work.resolve(kind + "-keyed.txt");
        Files.write(keyed, lines.stream().map(l -> l + ":" + l).toList(), StandardCharsets.UTF_8);
        kcat(kind, keyed, "-P", "-t", topic, "-K", ":");
        kcat(kind, input, "-P", "-t", topic, "-p", "0");

        String all = kcat(kind, null, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%p %o %k %s\\n");
        // Each partition's records in offset order; kcat interleaves the partitions as they arrive.
        all.lines()
                .sorted(Comparator.comparingLong((String l) -> Long.parseLong(l.split(" ")[0]))
                        .thenComparingLong(l -> Long.parseLong(l.split(" ")[1])))
                .forEach(line -> outcome.add("-C", line));
        List<String[]> consumed = all.lines().map(l -> l.split(" ", -1)).toList();
        assertThat(consumed).hasSize(2 * LINES);
        List<String> keyedValues = new ArrayList<>();
        List<String> partitionZeroUnkeyed = new ArrayList<>();
        for (String[] fields : consumed) {
            assertThat(fields).as(String.join(" ", fields)).hasSize(4);
            if (fields[2].isEmpty()) {
                assertThat(fields[0]).isEqualTo("0");
                partitionZeroUnkeyed.add(fields[3]);
            } else {
                assertThat(fields[2]).isEqualTo(fields[3]);
                keyedValues.add(fields[3]);
            }
        }
        assertThat(keyedValues).containsExactlyInAnyOrderElementsOf(lines);
        assertThat(partitionZeroUnkeyed).containsExactlyElementsOf(lines);

        String partitionZero =
                kcat(kind, null, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q", "-f", "%o\\n");
        List<Long> offsets = partitionZero.lines().map(Long::parseLong).toList();
        outcome.add("-C -p 0 offsets", offsets.size() + " from " + offsets.getFirst());
        assertThat(offsets)
                .isEqualTo(IntStream.range(0, offsets.size())
                        .mapToObj(i -> (long) i)
                        .toList());
    }

    private static List<Integer> ids(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(",")).map(Integer::valueOf).toList();
    }

    /** Runs kcat against the target; returns its standard output, fails on a non-zero exit. */
    private static String kcat(KafkaTargets.Kind kind, Path stdin, String... args)
            throws IOException, InterruptedException {
        KafkaTarget target = KafkaTargets.get(kind);
        // -E: see ClassicGroupToolsIT's kcat members (librdkafka 2.0 may call a bootstrap list
        // whose first broker is down "all brokers down" before trying the others).
        List<String> command = new ArrayList<>(List.of(kcat, "-E", "-b", target.bootstrapServers(), "-m", "30"));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(work, "kcat", ".out");
        Path err = Files.createTempFile(work, "kcat", ".err");
        Process process = new ProcessBuilder(command)
                .redirectInput(
                        stdin == null
                                ? ProcessBuilder.Redirect.from(new File("/dev/null"))
                                : ProcessBuilder.Redirect.from(stdin.toFile()))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!process.waitFor(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            fail("%s did not finish within %s; stderr:%n%s", command, Clients.PATIENCE, Files.readString(err));
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(process.exitValue())
                .as(
                        "%s exit code; stderr:%n%s%nstdout:%n%s%n%s",
                        command, Files.readString(err), stdout, target.logsHint())
                .isZero();
        return stdout;
    }
}
