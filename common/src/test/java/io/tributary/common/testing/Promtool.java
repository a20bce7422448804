package io.tributary.common.testing;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks a Prometheus text exposition with {@code promtool check metrics}, the parser and linter
 * Prometheus itself ships (Debian package {@code prometheus}).
 *
 * <p>The policy, deliberately:
 *
 * <ul>
 *   <li>exit 0: passes;
 *   <li>exit 1 (the exposition does not parse): fails;
 *   <li>exit 3 (lint problems only): passes unless a problem names a {@code tributary_} metric.
 *       Spring's and Micrometer's own meters have lint findings that Tributary does not own; its
 *       own meters must be clean;
 *   <li>promtool missing: fails, saying what to install. Never skips.
 * </ul>
 */
public final class Promtool {

    /** Where Debian's {@code prometheus} package puts it, if it is not on the PATH. */
    public static final Path DEBIAN_LOCATION = Path.of("/usr/bin/promtool");

    private static final Pattern TRIBUTARY_METRIC = Pattern.compile("(^|[^A-Za-z0-9_:])tributary_");

    private Promtool() {}

    /** What promtool said about an exposition. */
    public record Result(int exitCode, String output) {

        /** The lint problems that name a Tributary metric. */
        public List<String> tributaryProblems() {
            return output.lines()
                    .filter(line -> TRIBUTARY_METRIC.matcher(line).find())
                    .toList();
        }
    }

    /**
     * Runs {@code promtool check metrics} on {@code exposition} and applies the policy above.
     *
     * @throws AssertionError when the exposition fails the policy, or promtool is missing
     */
    public static void assertAcceptable(String exposition) {
        Result result = check(exposition);
        switch (result.exitCode()) {
            case 0 -> {}
            case 3 -> {
                List<String> ours = result.tributaryProblems();
                if (!ours.isEmpty()) {
                    throw new AssertionError("promtool check metrics found problems in Tributary's own metrics:\n"
                            + String.join("\n", ours));
                }
            }
            case 1 ->
                throw new AssertionError(
                        "promtool check metrics could not parse the exposition (exit 1):\n" + result.output());
            default ->
                throw new AssertionError(
                        "promtool check metrics exited %d:\n%s".formatted(result.exitCode(), result.output()));
        }
    }

    /** Runs {@code promtool check metrics} with {@code exposition} on its standard input. */
    public static Result check(String exposition) {
        Path promtool = locate().orElseThrow(() -> new AssertionError("promtool is neither on the PATH nor at "
                + DEBIAN_LOCATION + ": install Debian package prometheus (bin/test does)"));
        try {
            Process process = new ProcessBuilder(promtool.toString(), "check", "metrics")
                    .redirectErrorStream(true)
                    .start();
            CompletableFuture<Void> input = CompletableFuture.runAsync(() -> {
                try (OutputStream stdin = process.getOutputStream()) {
                    stdin.write(exposition.getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(1, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError("promtool check metrics did not finish within a minute");
            }
            input.join();
            return new Result(process.exitValue(), output);
        } catch (IOException e) {
            throw new AssertionError("cannot run " + promtool + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running promtool", e);
        }
    }

    private static Optional<Path> locate() {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.concat(
                        Stream.of(path.split(File.pathSeparator))
                                .filter(entry -> !entry.isBlank())
                                .map(entry -> Path.of(entry, "promtool")),
                        Stream.of(DEBIAN_LOCATION))
                .filter(Files::isExecutable)
                .findFirst();
    }
}
