package io.tributary.systemtests.kafka;

import io.tributary.common.testing.KafkaTestConnection;
import java.io.IOException;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;

/**
 * One raw Kafka connection to one broker, for requests no client would send (to a non-leader, for
 * an unknown topic): what the broker answers, not what a client makes of it. Versions are the
 * newest both kafka-clients and the broker (its ApiVersions answer) speak.
 */
final class RawKafka implements AutoCloseable {

    private final KafkaTestConnection connection;
    private final ApiVersionsResponse versions;

    private RawKafka(KafkaTestConnection connection, ApiVersionsResponse versions) {
        this.connection = connection;
        this.versions = versions;
    }

    static RawKafka open(int port) throws IOException {
        KafkaTestConnection connection = KafkaTestConnection.open(port);
        try {
            ApiVersionsResponse versions = connection.apiVersions();
            if (versions.data().errorCode() != Errors.NONE.code()) {
                throw new IllegalStateException(
                        "ApiVersions answered " + Errors.forCode(versions.data().errorCode()));
            }
            return new RawKafka(connection, versions);
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    KafkaTestConnection connection() {
        return connection;
    }

    /** The newest version of {@code api} that both sides speak; fails if the broker does not offer it. */
    short version(ApiKeys api) {
        ApiVersion offered = versions.data().apiKeys().find(api.id);
        if (offered == null) {
            throw new AssertionError("the broker does not advertise " + api + " in ApiVersions");
        }
        short version = (short) Math.min(offered.maxVersion(), api.latestVersion());
        if (version < Math.max(offered.minVersion(), api.oldestVersion())) {
            throw new AssertionError("no common version of " + api + ": broker " + offered.minVersion() + ".."
                    + offered.maxVersion() + ", client " + api.oldestVersion() + ".." + api.latestVersion());
        }
        return version;
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
