package io.tributary.systemtests.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * What one multi-broker scenario observed on one cluster, one line per observation, each already
 * normalised (broker ids as roles, epochs as "higher than before", no timings), so that the
 * transcripts of the Apache Kafka reference and of Tributary are equal exactly when a client saw the
 * same behaviour. {@link #diff} renders two transcripts line by line for a failure message.
 *
 * <p>Not thread-safe: written by the scenario's thread only.
 */
final class Transcript {

    private final List<String> lines = new ArrayList<>();

    /** Adds one observation ({@link String#formatted} with {@code args}). */
    void add(String format, Object... args) {
        lines.add(format.formatted(args));
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    /**
     * The two transcripts as a line diff (longest common subsequence): unchanged lines with two
     * spaces, the reference's own lines with {@code "- "}, the other's with {@code "+ "}.
     */
    static String diff(List<String> reference, List<String> other) {
        int n = reference.size();
        int m = other.size();
        int[][] common = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                common[i][j] = reference.get(i).equals(other.get(j))
                        ? common[i + 1][j + 1] + 1
                        : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && reference.get(i).equals(other.get(j))) {
                out.append("  ").append(reference.get(i++)).append('\n');
                j++;
            } else if (j < m && (i == n || common[i][j + 1] >= common[i + 1][j])) {
                out.append("+ ").append(other.get(j++)).append('\n');
            } else {
                out.append("- ").append(reference.get(i++)).append('\n');
            }
        }
        return out.toString();
    }
}
