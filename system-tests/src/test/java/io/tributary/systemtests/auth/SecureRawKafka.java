package io.tributary.systemtests.auth;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeResponse;

/**
 * One raw Kafka connection over TLS to a {@link SecureTargets} SASL_SSL listener, trusting the test
 * CA, logged in with SASL PLAIN (KIP-152 framing: SaslHandshake v1, then SaslAuthenticate v2), for
 * requests sent exactly as written: a request is any generated {@code *RequestData}, serialized at
 * the version the caller names; the answer is parsed by kafka-clients. Unlike the {@code kafka}
 * package's {@code RawKafka} (PLAINTEXT), it speaks to an authenticated listener, so what it sees
 * is what the broker allows one principal.
 *
 * <p>The server's host name is not verified (the test CA's certificate names {@code localhost}; the
 * subject here is authorization, not TLS). Not thread-safe: one test thread per connection.
 */
final class SecureRawKafka implements AutoCloseable {

    /** How long one read may block: a hang becomes a failure; not an assertion on speed. */
    private static final int READ_TIMEOUT_MS = 30_000;

    /** The largest response frame read (a Fetch of one small partition is far below). */
    private static final int MAX_RESPONSE_BYTES = 16 << 20;

    private static final String CLIENT_ID = "api-authorization-table-it";

    private final SSLSocket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private int nextCorrelationId = 1;

    private SecureRawKafka(SSLSocket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** A TLS connection to {@code bootstrap} ({@code host:port}), not logged in yet. */
    static SecureRawKafka connect(String bootstrap, Path caPem) throws IOException {
        int colon = bootstrap.lastIndexOf(':');
        SSLSocket socket = (SSLSocket) trusting(caPem).getSocketFactory().createSocket();
        try {
            socket.connect(
                    new InetSocketAddress(
                            bootstrap.substring(0, colon), Integer.parseInt(bootstrap.substring(colon + 1))),
                    READ_TIMEOUT_MS);
            socket.setSoTimeout(READ_TIMEOUT_MS);
            socket.setTcpNoDelay(true);
            socket.startHandshake();
            return new SecureRawKafka(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** A TLS connection to {@code bootstrap} logged in as {@code user} with PLAIN. */
    static SecureRawKafka login(String bootstrap, Path caPem, String user, String password) throws IOException {
        SecureRawKafka connection = connect(bootstrap, caPem);
        try {
            connection.plainLogin(user, password);
            return connection;
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private static SSLContext trusting(Path caPem) throws IOException {
        try (InputStream pem = Files.newInputStream(caPem)) {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            int i = 0;
            for (Certificate certificate :
                    CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
                trusted.setCertificateEntry("ca-" + i++, certificate);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot trust " + caPem + ": " + e, e);
        }
    }

    private void plainLogin(String user, String password) throws IOException {
        SaslHandshakeResponse handshake = (SaslHandshakeResponse)
                send(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism("PLAIN"));
        if (handshake.data().errorCode() != Errors.NONE.code()) {
            throw new IOException(
                    "SaslHandshake answered " + Errors.forCode(handshake.data().errorCode()));
        }
        byte[] token = ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
        SaslAuthenticateResponse authenticated = (SaslAuthenticateResponse)
                send(ApiKeys.SASL_AUTHENTICATE, (short) 2, new SaslAuthenticateRequestData().setAuthBytes(token));
        if (authenticated.data().errorCode() != Errors.NONE.code()) {
            throw new IOException("SaslAuthenticate answered "
                    + Errors.forCode(authenticated.data().errorCode()));
        }
    }

    /** The APIs the broker advertises in ApiVersions, by API (an unknown id is left out). */
    Map<ApiKeys, ApiVersion> apiVersions() throws IOException {
        ApiVersionsResponse response = (ApiVersionsResponse) send(
                ApiKeys.API_VERSIONS,
                ApiKeys.API_VERSIONS.latestVersion(),
                new ApiVersionsRequest.Builder().build().data());
        if (response.data().errorCode() != Errors.NONE.code()) {
            throw new IOException(
                    "ApiVersions answered " + Errors.forCode(response.data().errorCode()));
        }
        return byApi(response);
    }

    /** The APIs an ApiVersions answer advertises, by API (an id kafka-clients does not know is left out). */
    static Map<ApiKeys, ApiVersion> byApi(ApiVersionsResponse response) {
        Map<ApiKeys, ApiVersion> advertised = new TreeMap<>();
        for (ApiVersion api : response.data().apiKeys()) {
            if (ApiKeys.hasId(api.apiKey())) {
                advertised.put(ApiKeys.forId(api.apiKey()), api);
            }
        }
        return advertised;
    }

    /** Sends {@code data} as a request of {@code api} at {@code version} and reads the answer. */
    AbstractResponse send(ApiKeys api, short version, ApiMessage data) throws IOException {
        RequestHeader header = new RequestHeader(api, version, CLIENT_ID, nextCorrelationId++);
        ByteBuffer payload = RequestUtils.serialize(header.data(), header.headerVersion(), data, version);
        byte[] frame = new byte[4 + payload.remaining()];
        ByteBuffer.wrap(frame).putInt(payload.remaining()).put(payload);
        out.write(frame);
        out.flush();
        int size = in.readInt();
        if (size < 0 || size > MAX_RESPONSE_BYTES) {
            throw new IOException("a response frame of " + size + " bytes");
        }
        byte[] answer = new byte[size];
        in.readFully(answer);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
