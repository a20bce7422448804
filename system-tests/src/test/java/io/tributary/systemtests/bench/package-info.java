/**
 * Load generators run by the {@code bin/bench-*} scripts against a {@code bin/tributary} cluster (not
 * tests: only {@code PlainHttpConnectionTest} runs in the build). {@link
 * io.tributary.systemtests.bench.GatewayBench} is {@code bin/bench-gateway}'s: HTTP produce against
 * Kafka's own producer, SSE fan-out and end-to-end latency through the gateway, and the CPU each
 * process spent per produce case. {@link io.tributary.systemtests.bench.PlainHttpConnection} is its
 * lean HTTP/1.1 client for the produce cases. See {@code docs/benchmarks.md}.
 */
package io.tributary.systemtests.bench;
