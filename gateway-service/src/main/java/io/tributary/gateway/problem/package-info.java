/**
 * The gateway's errors as data: {@link io.tributary.gateway.problem.ProblemType} lists every RFC 9457
 * problem type the HTTP API answers with (each a stable {@code urn:tributary:problem:<name>}, all
 * documented in {@code openapi/tributary-v1.yaml}), {@link io.tributary.gateway.problem.ProblemException}
 * is how code below the HTTP edge reports one, and {@link io.tributary.gateway.problem.KafkaProblems}
 * names what {@code kafka-clients} throws. Plain Java: the edge ({@code app}) turns these into
 * {@code application/problem+json}; SSE will turn them into {@code error} and {@code gap} events.
 */
package io.tributary.gateway.problem;
