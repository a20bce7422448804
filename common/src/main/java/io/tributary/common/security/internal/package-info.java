/**
 * Authentication of Tributary's internal traffic. Every broker proves who it is with a key derived
 * from one cluster secret ({@link io.tributary.common.security.internal.ClusterSecret}, {@link
 * io.tributary.common.security.internal.BrokerKey}):
 *
 * <ul>
 *   <li>the brokers' control-plane calls to the coordinators carry a signature over their method,
 *       path, time and body ({@link io.tributary.common.security.internal.ControlPlaneSignature}),
 *       which a coordinator checks before it reads the call;
 *   <li>on the Kafka listeners (a follower fetching from its leader, a broker forwarding group
 *       requests to the coordinators, a coordinator reading log end offsets) Tributary's processes
 *       log in with SCRAM-SHA-512 ({@link io.tributary.common.security.internal.ScramSocketLogin})
 *       as reserved users ({@link io.tributary.common.security.internal.InternalUsers}) whose
 *       passwords derive from their keys ({@link
 *       io.tributary.common.security.internal.InternalLogin}); the coordinators write those users'
 *       credentials, so a listener verifies a login from the cluster's credentials without the
 *       secret; when the internal listeners are TLS the login runs inside the TLS session ({@link
 *       io.tributary.common.security.internal.InternalClientSecurity}: connect, handshake,
 *       login).
 * </ul>
 *
 * A coordinator holds the cluster secret and derives any broker's key; a broker can hold only its
 * own key, so that a broker's key cannot act for another broker. During a rotation a coordinator
 * holds the previous secret too, for verification only: {@link
 * io.tributary.common.security.internal.ControlPlaneSignature.Verifier} accepts either and says
 * which one a call was signed with. Plain Java, no Spring.
 */
package io.tributary.common.security.internal;
