package io.tributary.coordinator.metadata.raft;

import java.net.InetSocketAddress;
import java.util.Objects;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.rpc.SupportedRpcType;

/**
 * How the metadata voters reach one another, and how a coordinator's {@link MetadataClient} reaches
 * them: the Raft port's transport.
 *
 * <ul>
 *   <li>{@link #PLAIN}: Ratis's Netty transport, no TLS, no authentication (the default; it starts
 *       fastest). Anyone who reaches the Raft port can take part in the Raft protocol: keep the
 *       port on a network only the coordinators reach.
 *   <li>{@link #mutualTls}: Ratis's gRPC transport with mutual TLS. Every connection, between voters
 *       and from a coordinator's client, presents a certificate the trust store accepts and checks
 *       the other side's; a peer without one is refused during the handshake, before any Raft
 *       message is read. TLS 1.3 or 1.2, as the JDK's provider negotiates them. The key and trust
 *       material is read once, when the coordinator starts: replacing the files takes a restart
 *       (one voter at a time; a restarted voter with a certificate from the same authority rejoins).
 * </ul>
 *
 * <p>All the voters of a group use the same transport: a Netty voter and a gRPC voter do not
 * understand each other. Switching a running group is a full stop and start (the Raft log and
 * snapshots are the same on disk either way).
 *
 * <p>Thread-safety: immutable; Ratis reads it while building its server and clients.
 */
public sealed interface RaftTransport {

    /** Netty, plaintext. */
    RaftTransport PLAIN = new Plain();

    /**
     * gRPC with mutual TLS.
     *
     * @param keys this coordinator's certificate chain and private key
     * @param trust the authorities whose certificates the other voters and clients must present
     */
    static RaftTransport mutualTls(KeyManager keys, TrustManager trust) {
        return new MutualTls(keys, trust);
    }

    /** Sets the transport for a voter: as for a client, and the address its server binds. */
    default void configureServer(RaftProperties properties, Parameters parameters, InetSocketAddress bind) {
        configureClient(properties, parameters);
        bind(properties, bind);
    }

    /** Sets the transport's RPC type (and TLS) for a client of the group. */
    void configureClient(RaftProperties properties, Parameters parameters);

    /** Sets the address the voter's server binds. */
    void bind(RaftProperties properties, InetSocketAddress address);

    /** A short name for logs and health details: {@code plaintext} or {@code mutual-tls}. */
    String describe();

    /** Netty, plaintext. */
    record Plain() implements RaftTransport {
        @Override
        public void bind(RaftProperties properties, InetSocketAddress address) {
            NettyConfigKeys.Server.setHost(properties, address.getHostString());
            NettyConfigKeys.Server.setPort(properties, address.getPort());
        }

        @Override
        public void configureClient(RaftProperties properties, Parameters parameters) {
            RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.NETTY);
        }

        @Override
        public String describe() {
            return "plaintext";
        }
    }

    /** gRPC with mutual TLS (server and client sides, the same material). */
    record MutualTls(KeyManager keys, TrustManager trust) implements RaftTransport {
        public MutualTls {
            Objects.requireNonNull(keys, "keys");
            Objects.requireNonNull(trust, "trust");
        }

        @Override
        public void bind(RaftProperties properties, InetSocketAddress address) {
            GrpcConfigKeys.Server.setHost(properties, address.getHostString());
            GrpcConfigKeys.Server.setPort(properties, address.getPort());
        }

        @Override
        public void configureClient(RaftProperties properties, Parameters parameters) {
            RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
            GrpcTlsConfig tls = new GrpcTlsConfig(keys, trust, true);
            // The general setting and each of the three channels Ratis's gRPC factory looks up.
            GrpcConfigKeys.TLS.setConf(parameters, tls);
            GrpcConfigKeys.Server.setTlsConf(parameters, tls);
            GrpcConfigKeys.Client.setTlsConf(parameters, tls);
            GrpcConfigKeys.Admin.setTlsConf(parameters, tls);
        }

        @Override
        public String describe() {
            return "mutual-tls";
        }
    }
}
