/**
 * Authentication of Tributary's internal traffic: the brokers' control-plane calls to the
 * coordinators. Every broker proves who it is with a key derived from one cluster secret ({@link
 * io.tributary.common.security.internal.ClusterSecret}, {@link
 * io.tributary.common.security.internal.BrokerKey}); each call carries a signature over its method,
 * path, time and body ({@link io.tributary.common.security.internal.ControlPlaneSignature}), which
 * a coordinator checks before it reads the call. A coordinator holds the cluster secret and derives
 * any broker's key; a broker can hold only its own key, so that a broker's key cannot act for
 * another broker. Plain Java, no Spring.
 */
package io.tributary.common.security.internal;
