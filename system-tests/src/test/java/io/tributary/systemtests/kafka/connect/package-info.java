/**
 * The Kafka Connect plugins of {@code ConnectDistributedIT}: a source that emits numbered records,
 * each task its own range, as far as a release file allows ({@link
 * io.tributary.systemtests.kafka.connect.NumberedSourceConnector}), and a sink whose tasks append
 * every value they are given to a file of their own ({@link
 * io.tributary.systemtests.kafka.connect.LinesFileSinkConnector}).
 *
 * <p>They run inside Connect workers, child JVMs whose classpath is {@code
 * kafka-peer/target/kafka-libs} plus a jar of this package's classes and their {@code
 * META-INF/services} entries ({@code ConnectWorkerClasspath}), and are found there through those
 * entries ({@code plugin.discovery=service_load}). So they use nothing but the
 * JDK and {@code connect-api}: none of the test's own libraries is on the workers' classpath.
 */
package io.tributary.systemtests.kafka.connect;
