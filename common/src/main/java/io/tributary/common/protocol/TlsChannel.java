package io.tributary.common.protocol;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.util.Objects;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSession;

/**
 * One connection of a TLS listener (Kafka's SSL and SASL_SSL): an {@link SSLEngine} over the
 * accepted socket's blocking streams, driven by the connection's own (virtual) thread. It gives
 * the request reader decrypted bytes ({@link #input()}) and takes the responses ({@link
 * ResponseChannel}), encrypting them into TLS records.
 *
 * <p>Why an engine and not the JDK's {@code SSLSocket}: an {@code SSLSocket} reads a TLS record's
 * 5-byte header and then its body from the socket, one record (at most 16 KiB) at a time, and on a
 * virtual thread every read that finds the socket empty parks the thread and wakes it through the
 * poller. Producing 1 KiB records over SASL_SSL, a broker so made one {@code read} per 2.6 KiB
 * received and 4 times the context switches of the same load over SASL_PLAINTEXT (perf stat on the
 * broker during {@code ProducerPerformance}). Here each read asks the socket for as much as {@link
 * #READ_BYTES} of ciphertext and every complete record in it is decrypted before the next read.
 *
 * <p>The four buffers, each allocated once per connection, about 160 KiB together (a listener's
 * {@code max-connections} TLS connections hold that many times it on the heap):
 *
 * <ul>
 *   <li>{@code netIn}: ciphertext read from the socket and not yet decrypted ({@link #READ_BYTES}
 *       plus room for one record);
 *   <li>{@code appIn}: decrypted bytes not yet read; a read that can take a whole record's
 *       plaintext (a request body) is decrypted straight into the caller's array instead;
 *   <li>{@code appOut}: response bytes not yet encrypted ({@link #OUTPUT_BYTES}); a file region
 *       (fetched segment bytes, {@link #transferFrom}) is read straight into it;
 *   <li>{@code netOut}: TLS records not yet written; written when it cannot take another record
 *       and on {@link #flush()}, so that one write carries several records.
 * </ul>
 *
 * <p>A TLS 1.3 key update from the client is answered while reading; a TLS 1.2 renegotiation
 * ends the connection, as on Kafka. Closing: when the client sent its {@code close_notify}, {@link
 * #close()} answers with this side's before closing the socket; otherwise it closes the socket
 * without one (a write to a client that stopped reading could wait forever).
 *
 * <p>Not thread-safe: only the connection's thread reads and writes. Another thread may shut the
 * socket's input down or close it (the listener closing), which ends a blocked read or write.
 */
public final class TlsChannel implements ResponseChannel {

    /** How much ciphertext one read from the socket asks for (two records' worth). */
    static final int READ_BYTES = 32 * 1024;

    /** How much of a response is collected before it is encrypted (two records' worth). */
    static final int OUTPUT_BYTES = 32 * 1024;

    /** The most plaintext one TLS record carries (2^14 bytes, RFC 8446 section 5.1). */
    static final int MAX_RECORD_PLAINTEXT = 16 * 1024;

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SSLEngine engine;
    private final Socket socket;
    private final InputStream socketIn;
    private final OutputStream socketOut;
    /** Write mode: [0, position) received and not yet decrypted. */
    private ByteBuffer netIn;
    /** Read mode: [position, limit) decrypted and not yet read. */
    private ByteBuffer appIn;
    /** Write mode: [0, position) written and not yet encrypted. */
    private final ByteBuffer appOut = ByteBuffer.allocate(OUTPUT_BYTES);
    /** Write mode: [0, position) encrypted and not yet sent. */
    private ByteBuffer netOut;

    private final InputStream input = new Input();
    /** The plaintext one record can carry: a read that can take this much skips {@code appIn}. */
    private int recordPlaintextBytes;
    /** The ciphertext one record can take: {@link #wrap} sends first when less room is left. */
    private int recordPacketBytes;

    private boolean inboundDone;
    private boolean peerClosed;
    private boolean open = true;

    /**
     * @param engine a server-mode engine, configured, before its handshake
     * @param socket the accepted socket; its streams' blocking reads honour its {@code SO_TIMEOUT}
     */
    public TlsChannel(SSLEngine engine, Socket socket) throws IOException {
        this.engine = engine;
        this.socket = socket;
        this.socketIn = socket.getInputStream();
        this.socketOut = socket.getOutputStream();
        SSLSession session = engine.getSession();
        this.recordPlaintextBytes = session.getApplicationBufferSize();
        this.recordPacketBytes = session.getPacketBufferSize();
        this.netIn = ByteBuffer.allocate(READ_BYTES + session.getPacketBufferSize());
        this.appIn = ByteBuffer.allocate(2 * recordPlaintextBytes).flip();
        this.netOut = ByteBuffer.allocate(OUTPUT_BYTES + recordPacketBytes);
    }

    /**
     * Runs the server side of the TLS handshake. On failure the engine's alert is sent to the
     * client if it can be, and the exception is thrown; the caller then closes the channel.
     *
     * @throws SSLException the handshake failed (no common protocol or cipher, a certificate
     *     refused, not TLS at all)
     * @throws EOFException the client closed the connection during the handshake
     */
    public void handshake() throws IOException {
        try {
            engine.beginHandshake();
            HandshakeStatus status = engine.getHandshakeStatus();
            while (status != HandshakeStatus.FINISHED && status != HandshakeStatus.NOT_HANDSHAKING) {
                status = switch (status) {
                    case NEED_TASK -> runTasks();
                    case NEED_WRAP -> wrap(EMPTY).getHandshakeStatus();
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> handshakeUnwrap();
                    default -> throw new IllegalStateException("handshake status " + status);
                };
            }
            send();
        } catch (SSLException e) {
            sendAlert();
            throw e;
        }
        recordPlaintextBytes = engine.getSession().getApplicationBufferSize();
        recordPacketBytes = engine.getSession().getPacketBufferSize();
    }

    /** One handshake message from the client, reading more of it from the socket when needed. */
    private HandshakeStatus handshakeUnwrap() throws IOException {
        netIn.flip();
        appIn.compact();
        SSLEngineResult result;
        try {
            result = engine.unwrap(netIn, appIn);
        } finally {
            netIn.compact();
            appIn.flip();
        }
        switch (result.getStatus()) {
            case BUFFER_UNDERFLOW -> {
                send(); // this side's flight first: the client answers it
                if (!receive()) {
                    throw new EOFException("the client closed the connection during the TLS handshake");
                }
            }
            case BUFFER_OVERFLOW ->
                appIn = grow(appIn.compact(), engine.getSession().getApplicationBufferSize())
                        .flip();
            case CLOSED -> throw new SSLException("the client closed TLS during the handshake");
            case OK -> {
                // next message
            }
        }
        return result.getHandshakeStatus();
    }

    /** The handshake's session: the protocol, the cipher suite and the client's certificates. */
    public SSLSession session() {
        return engine.getSession();
    }

    /**
     * The decrypted bytes the client sends; -1 once it closed the connection or sent {@code
     * close_notify}. Reads block as the socket's do (its {@code SO_TIMEOUT} applies).
     */
    public InputStream input() {
        return input;
    }

    private final class Input extends InputStream {

        private final byte[] one = new byte[1];

        @Override
        public int read() throws IOException {
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] target, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, target.length);
            return length == 0 ? 0 : readDecrypted(target, offset, length);
        }

        @Override
        public int available() {
            return appIn.remaining();
        }
    }

    private int readDecrypted(byte[] target, int offset, int length) throws IOException {
        while (true) {
            if (appIn.hasRemaining()) {
                int n = Math.min(length, appIn.remaining());
                appIn.get(target, offset, n);
                return n;
            }
            if (inboundDone) {
                return -1;
            }
            if (length >= recordPlaintextBytes) {
                // A request body's worth: decrypted straight into the caller's array.
                ByteBuffer direct = ByteBuffer.wrap(target, offset, length);
                decrypt(direct);
                int produced = direct.position() - offset;
                if (produced > 0) {
                    return produced;
                }
            } else {
                if (appIn.capacity() < recordPlaintextBytes) {
                    appIn = ByteBuffer.allocate(2 * recordPlaintextBytes); // empty: nothing to keep
                }
                appIn.clear();
                try {
                    decrypt(appIn);
                } finally {
                    appIn.flip();
                }
                if (appIn.hasRemaining()) {
                    continue;
                }
            }
            if (!inboundDone && !receive()) {
                inboundDone = true;
            }
        }
    }

    /**
     * Decrypts the complete records {@code netIn} holds into {@code target} while it has room for
     * one record's plaintext, answering post-handshake messages on the way; stops at an
     * incomplete record, a full target or the client's {@code close_notify}.
     */
    private void decrypt(ByteBuffer target) throws IOException {
        netIn.flip();
        try {
            while (netIn.hasRemaining() && target.remaining() >= recordPlaintextBytes) {
                SSLEngineResult result = engine.unwrap(netIn, target);
                switch (result.getStatus()) {
                    case OK -> {
                        // the next record
                    }
                    case CLOSED -> {
                        // The client's close_notify: close() answers it.
                        inboundDone = true;
                        peerClosed = true;
                        return;
                    }
                    case BUFFER_UNDERFLOW -> {
                        return;
                    }
                    case BUFFER_OVERFLOW -> {
                        // A record larger than the session said: from now on a read asks for
                        // more room than this target had (appIn grows to it if need be).
                        recordPlaintextBytes =
                                Math.max(engine.getSession().getApplicationBufferSize(), target.remaining() + 1);
                        return;
                    }
                }
                afterUnwrap(result.getHandshakeStatus());
            }
        } finally {
            netIn.compact();
        }
    }

    /**
     * Answers what the engine asks for after a post-handshake message: a TLS 1.3 key update is
     * answered; a TLS 1.2 renegotiation is refused, as Kafka refuses it (while it ran, responses
     * could not be sent).
     */
    private void afterUnwrap(HandshakeStatus status) throws IOException {
        if (status != HandshakeStatus.NOT_HANDSHAKING
                && status != HandshakeStatus.FINISHED
                && !"TLSv1.3".equals(engine.getSession().getProtocol())) {
            throw new SSLHandshakeException("TLS renegotiation is not supported");
        }
        while (true) {
            switch (status) {
                case NEED_TASK -> status = runTasks();
                case NEED_WRAP -> {
                    status = wrap(EMPTY).getHandshakeStatus();
                    send();
                }
                default -> {
                    return; // NEED_UNWRAP: the next records carry the rest
                }
            }
        }
    }

    /** Reads what the socket has (up to {@code netIn}'s room); false at its end. */
    private boolean receive() throws IOException {
        if (!netIn.hasRemaining()) {
            netIn = grow(netIn, engine.getSession().getPacketBufferSize());
        }
        int n = socketIn.read(netIn.array(), netIn.arrayOffset() + netIn.position(), netIn.remaining());
        if (n < 0) {
            return false;
        }
        netIn.position(netIn.position() + n);
        return true;
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        ensureOpen();
        int written = source.remaining();
        while (source.hasRemaining()) {
            if (appOut.position() == 0 && source.remaining() >= MAX_RECORD_PLAINTEXT) {
                // Whole records straight from the source, without a copy into appOut.
                while (source.remaining() >= MAX_RECORD_PLAINTEXT) {
                    wrap(source);
                }
                continue;
            }
            int n = Math.min(appOut.remaining(), source.remaining());
            int limit = source.limit();
            source.limit(source.position() + n);
            appOut.put(source);
            source.limit(limit);
            if (!appOut.hasRemaining()) {
                encryptAppOut();
            }
        }
        return written;
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, sources.length);
        long written = 0;
        for (int i = offset; i < offset + length; i++) {
            written += write(sources[i]);
        }
        return written;
    }

    @Override
    public long write(ByteBuffer[] sources) throws IOException {
        return write(sources, 0, sources.length);
    }

    /**
     * Sends up to {@code count} bytes of {@code file} from {@code position}: one positional read
     * into the response buffer, which is encrypted once full. TLS encrypts in the JVM, so there is
     * no zero-copy send on a TLS listener (as on Kafka's).
     *
     * @return the bytes taken: more than 0 unless {@code count} is 0 or the file ends at {@code
     *     position}
     */
    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        ensureOpen();
        if (count <= 0) {
            return 0;
        }
        if (!appOut.hasRemaining()) {
            encryptAppOut();
        }
        int start = appOut.position();
        appOut.limit(start + (int) Math.min(count, appOut.remaining()));
        try {
            while (appOut.hasRemaining()) {
                if (file.read(appOut, position + appOut.position() - start) < 0) {
                    break; // the file ends inside the region: send what there is
                }
            }
        } finally {
            appOut.limit(appOut.capacity());
        }
        int read = appOut.position() - start;
        if (!appOut.hasRemaining()) {
            encryptAppOut();
        }
        return read;
    }

    @Override
    public boolean hasPendingWrites() {
        return false; // flush() sends the rest of a response
    }

    /** Encrypts what is buffered and sends every record. */
    @Override
    public void flush() throws IOException {
        ensureOpen();
        encryptAppOut();
        send();
    }

    private void encryptAppOut() throws IOException {
        appOut.flip();
        try {
            while (appOut.hasRemaining()) {
                wrap(appOut);
            }
        } finally {
            appOut.clear();
        }
    }

    /** Encrypts one record of {@code source} (or a handshake message) into {@code netOut}, sending first when it is full. */
    private SSLEngineResult wrap(ByteBuffer source) throws IOException {
        while (true) {
            if (netOut.remaining() < recordPacketBytes) {
                send();
                if (netOut.remaining() < recordPacketBytes) {
                    netOut = grow(netOut, recordPacketBytes);
                }
            }
            SSLEngineResult result = engine.wrap(source, netOut);
            switch (result.getStatus()) {
                case OK -> {
                    if (result.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                        runTasks();
                    } else if (result.bytesConsumed() == 0 && result.bytesProduced() == 0 && source.hasRemaining()) {
                        // The engine waits for the client (a handshake in progress): nothing can be
                        // sent, and calling again would spin.
                        throw new SSLException(
                                "the TLS engine takes no data (handshake status " + result.getHandshakeStatus() + ")");
                    }
                    return result;
                }
                case BUFFER_OVERFLOW -> {
                    send();
                    // The session's records may have grown (asked again only here, not per wrap).
                    recordPacketBytes =
                            Math.max(recordPacketBytes, engine.getSession().getPacketBufferSize());
                }
                case CLOSED -> {
                    if (result.bytesProduced() > 0) {
                        return result; // the close_notify or an alert
                    }
                    throw new ClosedChannelException();
                }
                case BUFFER_UNDERFLOW -> throw new IllegalStateException("wrap reported an underflow");
            }
        }
    }

    /** Writes every encrypted byte {@code netOut} holds to the socket. */
    private void send() throws IOException {
        if (netOut.position() > 0) {
            socketOut.write(netOut.array(), netOut.arrayOffset(), netOut.position());
            netOut.clear();
        }
    }

    /** After a failed handshake: the alert the engine made for the client, if it can still be sent. */
    private void sendAlert() {
        try {
            wrap(EMPTY);
            send();
        } catch (IOException | RuntimeException e) {
            // The client learns of the failure from the closed connection instead.
        }
    }

    private HandshakeStatus runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
        return engine.getHandshakeStatus();
    }

    private static ByteBuffer grow(ByteBuffer buffer, int room) {
        ByteBuffer bigger = ByteBuffer.allocate(buffer.position() + Math.max(room, buffer.capacity()));
        return bigger.put(buffer.flip());
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /**
     * Closes the socket; first answers the client's {@code close_notify} with this side's when the
     * client sent one (see the class comment).
     */
    @Override
    public void close() throws IOException {
        if (!open) {
            return;
        }
        open = false;
        try {
            if (peerClosed) {
                engine.closeOutbound();
                netOut.clear();
                wrap(EMPTY);
                send();
            }
        } catch (IOException | RuntimeException e) {
            // closing anyway
        } finally {
            socket.close();
        }
    }
}
