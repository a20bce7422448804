package io.tributary.broker.cluster;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The names of a broker's Kafka listeners, as Kafka has them: every listener has a name, and a
 * broker registers one endpoint (advertised host and port) per listener with the coordinators.
 * Metadata, DescribeCluster, FindCoordinator and the leader hints of Produce and Fetch answer a
 * request with the endpoints registered under the name of the listener the request came in on, so
 * clients inside the cluster are told the brokers' internal addresses and clients outside the
 * external ones; a broker without an endpoint of that name is left out (Kafka's rule).
 *
 * <table>
 *   <caption>listeners</caption>
 *   <tr><th>listener</th><th>registered as</th><th>server name (logs, {@code listener} metric tag)</th><th>configuration</th></tr>
 *   <tr><td>internal, always</td><td>{@value #INTERNAL}</td><td>{@code kafka}</td><td>{@code tributary.kafka.*}</td></tr>
 *   <tr><td>external, optional</td><td>{@value #EXTERNAL}</td><td>{@value #EXTERNAL_SERVER_NAME}</td>
 *       <td>{@code tributary.broker.external-listener.*}</td></tr>
 *   <tr><td>named, optional, any number</td><td>its name ({@code SASL_SSL}, {@code CLIENT}...)</td>
 *       <td>its name</td><td>{@code tributary.broker.listeners} and the other Kafka-named keys</td></tr>
 * </table>
 *
 * <p>Replication (followers fetching from leaders) and the gateway use the internal listener.
 */
public final class BrokerListeners {

    /** The internal listener's registered name (Kafka's default listener name). */
    public static final String INTERNAL = "PLAINTEXT";

    /** The external listener's registered name. */
    public static final String EXTERNAL = "EXTERNAL";

    /** The external listener's server name: its {@code listener} metric tag and thread names. */
    public static final String EXTERNAL_SERVER_NAME = "external";

    private BrokerListeners() {}

    /** A named listener's server name: its Kafka name, upper-case letters, digits and '_'. */
    private static final Pattern NAMED = Pattern.compile("[A-Z0-9_]+");

    /**
     * The registered name of the listener called {@code serverName} in this process: the external
     * one for {@link #EXTERNAL_SERVER_NAME}, a named listener's own name for an upper-case name
     * (named listeners are served under their Kafka name), the internal one for every other.
     */
    public static String registeredName(String serverName) {
        Objects.requireNonNull(serverName, "serverName");
        if (EXTERNAL_SERVER_NAME.equals(serverName)) {
            return EXTERNAL;
        }
        return NAMED.matcher(serverName).matches() ? serverName : INTERNAL;
    }
}
