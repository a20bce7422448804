package io.tributary.common.protocol;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * The client side of Kafka's framing over a blocking socket, for Tributary's own small clients of
 * other Tributary processes (replica fetches, forwarded group requests, the internal login): a
 * request is a 4-byte big-endian length, then the request header and body as kafka-clients
 * serializes them; the response the same, parsed by kafka-clients (which checks the correlation
 * id against the request's header).
 *
 * <p>Thread-safety: stateless; one round trip at a time per socket is the caller's business.
 */
public final class KafkaFrames {

    private KafkaFrames() {}

    /**
     * Sends {@code request} with {@code header} and reads its response, within the socket's read
     * timeout for each read.
     *
     * @throws IOException when the socket fails, the response frame is negative or larger than
     *     {@code maxResponseBytes}, or the response does not parse as the request's API
     */
    public static AbstractResponse roundTrip(
            Socket socket, AbstractRequest request, RequestHeader header, int maxResponseBytes) throws IOException {
        ByteBuffer payload = request.serializeWithHeader(header);
        OutputStream out = new BufferedOutputStream(socket.getOutputStream());
        byte[] frameOut = new byte[4 + payload.remaining()];
        ByteBuffer.wrap(frameOut).putInt(payload.remaining()).put(payload.duplicate());
        out.write(frameOut);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int size = in.readInt();
        if (size < 0 || size > maxResponseBytes) {
            throw new IOException("response frame of " + size + " bytes; at most " + maxResponseBytes + " accepted");
        }
        byte[] frame = new byte[size];
        in.readFully(frame);
        try {
            return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
        } catch (RuntimeException e) {
            throw new IOException("the answer to " + header.apiKey() + " does not parse: " + e.getMessage(), e);
        }
    }
}
