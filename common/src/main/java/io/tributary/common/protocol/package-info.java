/**
 * The Kafka-protocol listener that brokers and coordinators share: plain Java, no Spring.
 *
 * <h2>Flow</h2>
 *
 * <pre>
 *  KafkaProtocolServer          one acceptor thread; refuses connections past maxConnections
 *        | accept
 *        v
 *  ListenerConnection (one thread each: virtual, or platform on a TLS listener; ConnectionThreads)
 *        | read frame  --&gt;  KafkaCodec.decode  --&gt;  RequestHandler.handle  --&gt;  KafkaCodec.encode  --&gt; write
 *        |                (header + body with kafka-clients' generated classes)
 *        '-- loop: the next request is read only after the previous response is written, so
 *            responses leave in request order, as Kafka clients require.
 * </pre>
 *
 * <h2>Wire format (Kafka's, not Tributary's own)</h2>
 *
 * Every request and response is one frame:
 *
 * <pre>
 *  offset  size  field
 *  0       4     length: int32, big-endian, the number of bytes that follow (0 &lt;= length &lt;= maxFrameBytes)
 *  4       n     request: RequestHeader (api_key int16, api_version int16, correlation_id int32,
 *                client_id nullable string, tagged fields from header v2) then the request body
 *                response: ResponseHeader (correlation_id int32, tagged fields from header v1) then
 *                the response body
 * </pre>
 *
 * Headers and bodies are read and written by {@link io.tributary.common.protocol.KafkaCodec}, the one
 * class that touches kafka-clients' request and response internals.
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>Responses on a connection leave in the order of its requests (acks=0 produce requests get
 *       none, as in Kafka).
 *   <li>ApiVersions advertises exactly the registered handlers' version ranges plus ApiVersions
 *       itself; any other API or version is answered with UNSUPPORTED_VERSION where Kafka's codec can
 *       parse it, and the connection is closed where it cannot.
 *   <li>A frame with a negative length, a length over {@code maxFrameBytes}, or bytes that do not
 *       parse closes that one connection; it is logged once and counted, and every other connection
 *       goes on.
 *   <li>Memory: at most {@code maxConnections} connections, each frame at most {@code maxFrameBytes},
 *       all frames being handled at once at most {@code maxInFlightRequestBytes} together (a reader
 *       waits for room, which pushes back on the client through TCP).
 *   <li>On a listener built with {@link io.tributary.common.security.sasl.SaslSettings}, a
 *       connection must complete a SASL exchange (SaslHandshake, then SaslAuthenticate, answered by
 *       the listener itself and advertised with ApiVersions) before any request but ApiVersions
 *       reaches a handler; see {@link io.tributary.common.security.sasl.SaslSession}. Handlers see
 *       the authenticated principal in {@link io.tributary.common.protocol.ConnectionInfo}.
 *   <li>Handlers put behind a {@link io.tributary.common.protocol.RequestAuthorizer} see only
 *       requests whose caller holds the permissions Kafka checks on the request as a whole (the
 *       cluster, the request's group or transactional id: {@link
 *       io.tributary.common.security.acl.ApiAccess}); the rest is refused with Kafka's answer.
 * </ul>
 */
package io.tributary.common.protocol;
