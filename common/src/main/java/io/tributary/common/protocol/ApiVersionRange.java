package io.tributary.common.protocol;

import java.util.Objects;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The versions of one API that a handler implements: advertised as-is in ApiVersions.
 *
 * @param apiKey the API
 * @param minVersion the oldest version the handler implements
 * @param maxVersion the newest version the handler implements; at most what kafka-clients can parse
 */
public record ApiVersionRange(ApiKeys apiKey, short minVersion, short maxVersion) {

    public ApiVersionRange {
        Objects.requireNonNull(apiKey, "apiKey");
        if (minVersion < apiKey.oldestVersion() || maxVersion > apiKey.latestVersion() || minVersion > maxVersion) {
            throw new IllegalArgumentException("versions %d..%d of %s are outside what kafka-clients parses (%d..%d)"
                    .formatted(minVersion, maxVersion, apiKey, apiKey.oldestVersion(), apiKey.latestVersion()));
        }
    }

    /** A range of versions, with ints for readability at the call site. */
    public static ApiVersionRange of(ApiKeys apiKey, int minVersion, int maxVersion) {
        return new ApiVersionRange(apiKey, (short) minVersion, (short) maxVersion);
    }

    /** Whether {@code version} is in this range. */
    public boolean contains(short version) {
        return version >= minVersion && version <= maxVersion;
    }
}
