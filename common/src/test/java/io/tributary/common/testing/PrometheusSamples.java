package io.tributary.common.testing;

import java.util.List;

/** Reads a Prometheus text exposition as its sample lines. */
public final class PrometheusSamples {

    private PrometheusSamples() {}

    /** Every line that is a sample: not empty, not a {@code # HELP}/{@code # TYPE} comment. */
    public static List<String> sampleLines(String exposition) {
        return exposition
                .lines()
                .filter(line -> !line.isBlank() && !line.startsWith("#"))
                .toList();
    }
}
