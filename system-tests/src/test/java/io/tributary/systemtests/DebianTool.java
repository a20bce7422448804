package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A command from a Debian package that a test runs (promtool, docker-compose, python3...), or a
 * Python module Debian packages for its {@code /usr/bin/python3} (python3-confluent-kafka): {@code
 * bin/test} installs each one; a test that finds its command or module missing fails naming the
 * package, never skips. Stateless.
 */
public final class DebianTool {

    private DebianTool() {}

    /** A finished command's exit code and its output (standard output and error together). */
    record Result(int exitCode, String output) {}

    /** Fails the test, naming the package to install, unless {@code command} is on the PATH. */
    public static void requireOnPath(String command, String debianPackage) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return;
            }
        }
        fail(
                "%s is not installed (not on PATH %s). bin/test installs it; by hand: apt-get install -y --no-install-recommends %s",
                command, path, debianPackage);
    }

    /**
     * Fails the test, naming the package to install, unless {@code python} (Debian's, by its full
     * path: the {@code python3} first on the PATH may be another one, without Debian's modules)
     * imports {@code module}.
     */
    public static void requirePythonModule(String python, String module, String debianPackage) {
        String hint = "bin/test installs it; by hand: apt-get install -y --no-install-recommends " + debianPackage;
        if (!Files.isExecutable(Path.of(python))) {
            fail("%s is missing, so the Python module %s is not installed. %s", python, module, hint);
        }
        try {
            Process process = new ProcessBuilder(python, "-c", "import " + module)
                    .redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("%s -c 'import %s' did not finish in 60 s", python, module);
            }
            if (process.exitValue() != 0) {
                fail("%s cannot import %s (%s). %s", python, module, output.strip(), hint);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted importing " + module, e);
        }
    }

    /**
     * Runs {@code commandLine} (its first word the command of {@code debianPackage}) in {@code
     * directory}, stdin from /dev/null, its output into a file under {@code work}; fails the test if it
     * takes more than 60 s.
     */
    static Result run(Path directory, Path work, String debianPackage, List<String> commandLine) {
        String command = commandLine.getFirst();
        requireOnPath(command, debianPackage);
        try {
            Path output = Files.createTempFile(work, command, ".out");
            Process process = new ProcessBuilder(commandLine)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("%s did not finish in 60 s", String.join(" ", commandLine));
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + commandLine, e);
        }
    }
}
