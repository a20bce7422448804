/**
 * Load generators run by the {@code bin/bench-*} scripts against a {@code bin/tributary} cluster (not
 * tests: nothing here runs in the build). {@link io.tributary.systemtests.bench.GatewayBench} is
 * {@code bin/bench-gateway}'s: HTTP produce against Kafka's own producer, SSE fan-out and
 * end-to-end latency through the gateway. See {@code docs/benchmarks.md}.
 */
package io.tributary.systemtests.bench;
