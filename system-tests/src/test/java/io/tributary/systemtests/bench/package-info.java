/**
 * Load generators run by the {@code bin/bench-*} scripts against a {@code bin/tributary} cluster (not
 * tests: only {@code PlainHttpConnectionTest} and {@code GroupTimelineTest} run in the build). {@link
 * io.tributary.systemtests.bench.GatewayBench} is {@code bin/bench-gateway}'s: HTTP produce against
 * Kafka's own producer, SSE fan-out and end-to-end latency through the gateway, and the CPU each
 * process spent per produce case. {@link io.tributary.systemtests.bench.PlainHttpConnection} is its
 * lean HTTP/1.1 client for the produce cases. {@link io.tributary.systemtests.bench.GroupBench} is
 * {@code bin/bench-groups}': classic consumer groups on Tributary and on the Apache Kafka peer, each
 * member a {@link io.tributary.systemtests.bench.GroupBenchMember} in a JVM of its own, its events
 * read into a {@link io.tributary.systemtests.bench.GroupTimeline}, on one monotonic clock. See
 * {@code docs/benchmarks.md}.
 */
package io.tributary.systemtests.bench;
