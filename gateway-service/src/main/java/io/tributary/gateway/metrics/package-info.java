/**
 * The gateway's own metrics, all named {@code tributary.gateway.*} (Prometheus: {@code
 * tributary_gateway_*}): records produced and consumed per topic, errors per problem type. Plain
 * Java over Micrometer (no Spring). Topic tags only ever come from topics that exist (a record was
 * written or read), so a client cannot grow the tag space with made-up names.
 */
package io.tributary.gateway.metrics;
