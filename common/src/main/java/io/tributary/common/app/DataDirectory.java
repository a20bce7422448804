package io.tributary.common.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A service's data directory, created at startup so that a missing or unwritable one stops the
 * process with a message naming the setting, and so that the disk-space health check measures it.
 *
 * @param path the directory, absolute
 */
public record DataDirectory(Path path) {

    /**
     * Creates {@code path} (and its parents) unless it exists.
     *
     * @param property the configuration key it came from, for the error message
     * @throws UncheckedIOException when it cannot be created or is not a writable directory
     */
    public static DataDirectory create(Path path, String property) {
        Path absolute = path.toAbsolutePath().normalize();
        try {
            Files.createDirectories(absolute);
        } catch (IOException e) {
            throw new UncheckedIOException("%s=%s cannot be created: %s".formatted(property, absolute, e), e);
        }
        if (!Files.isWritable(absolute)) {
            throw new UncheckedIOException(
                    new IOException("%s=%s is not a writable directory".formatted(property, absolute)));
        }
        return new DataDirectory(absolute);
    }
}
