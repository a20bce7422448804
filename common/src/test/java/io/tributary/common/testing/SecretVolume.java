package io.tributary.common.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Set;

/**
 * A directory laid out as the kubelet mounts a Kubernetes Secret, for tests of certificate
 * rotation: each file {@code <dir>/<name>} is a symbolic link to {@code ..data/<name>}, {@code
 * ..data} a link to a directory holding one version of every file, and an update ({@link
 * #publish}) writes a new version's directory and switches {@code ..data} to it with one atomic
 * rename, so a reader never sees half of an update.
 *
 * <p>Thread-safety: one writer.
 */
public final class SecretVolume {

    private final Path dir;
    private int versions;

    private SecretVolume(Path dir) {
        this.dir = dir;
    }

    /** The volume in {@code dir} (created if missing) with its first version of {@code files} (name to text). */
    public static SecretVolume create(Path dir, Map<String, String> files) throws IOException {
        SecretVolume volume = new SecretVolume(Files.createDirectories(dir));
        volume.publish(files);
        for (String name : files.keySet()) {
            Files.createSymbolicLink(dir.resolve(name), Path.of("..data", name));
        }
        return volume;
    }

    /** Where a reader finds file {@code name} (the link through {@code ..data}). */
    public Path file(String name) {
        return dir.resolve(name);
    }

    /** A new version of the files (the same names as the first), switched to at once. */
    public void publish(Map<String, String> files) throws IOException {
        Set<String> names = files.keySet();
        Path version = Files.createDirectory(dir.resolve("..version-" + ++versions));
        for (String name : names) {
            Files.writeString(version.resolve(name), files.get(name));
        }
        Path link = Files.createSymbolicLink(dir.resolve("..data_tmp"), version.getFileName());
        Files.move(link, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
