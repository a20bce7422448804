/**
 * The gateway's Spring edge: the application, {@code GatewayProperties}, the wiring of the Kafka
 * clients and of the feature controllers ({@code produce}, {@code consume}, {@code admin}, which are
 * declared here as beans rather than scanned), {@code ProblemAdvice} (the one place where errors
 * become {@code application/problem+json}), and the OpenAPI description springdoc serves.
 */
package io.tributary.gateway.app;
