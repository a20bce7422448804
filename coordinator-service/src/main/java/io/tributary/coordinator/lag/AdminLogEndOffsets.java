package io.tributary.coordinator.lag;

import io.tributary.coordinator.metadata.TopicPartition;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LogEndOffsets} through kafka-clients' {@link Admin}: {@code listOffsets} with {@link
 * OffsetSpec#latest()} (read-uncommitted: the high watermark, what a consumer can reach). One Admin
 * is kept and made again when the bootstrap brokers change (it is closed first).
 *
 * <p>Thread-safety: one caller at a time (the lag refresh thread).
 */
public final class AdminLogEndOffsets implements LogEndOffsets {

    private static final Logger log = LoggerFactory.getLogger(AdminLogEndOffsets.class);

    private final Duration requestTimeout;
    private final Function<Properties, Admin> factory;
    private Admin admin;
    private List<String> bootstrap;

    /**
     * @param requestTimeout how long one refresh's listOffsets may take in all
     * @param factory makes an Admin from its properties ({@code Admin::create} in production)
     */
    public AdminLogEndOffsets(Duration requestTimeout, Function<Properties, Admin> factory) {
        if (!requestTimeout.isPositive()) {
            throw new IllegalArgumentException("requestTimeout must be positive, got " + requestTimeout);
        }
        this.requestTimeout = requestTimeout;
        this.factory = factory;
    }

    @Override
    public Map<TopicPartition, Long> latest(List<String> bootstrapServers, Set<TopicPartition> partitions)
            throws InterruptedException, TimeoutException, ExecutionException {
        if (bootstrapServers.isEmpty()) {
            throw new ExecutionException("no live broker to ask", null);
        }
        Admin current = admin(bootstrapServers);
        Map<org.apache.kafka.common.TopicPartition, OffsetSpec> request = new HashMap<>();
        for (TopicPartition tp : partitions) {
            request.put(new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()), OffsetSpec.latest());
        }
        int timeoutMs = Math.toIntExact(requestTimeout.toMillis());
        ListOffsetsResult result = current.listOffsets(
                request, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED).timeoutMs(timeoutMs));
        Map<TopicPartition, KafkaFuture<ListOffsetsResult.ListOffsetsResultInfo>> futures = new HashMap<>();
        for (TopicPartition tp : partitions) {
            futures.put(
                    tp, result.partitionResult(new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition())));
        }
        Exception failure = null;
        try {
            // Completes once every partition's answer is in, failed ones included.
            KafkaFuture.allOf(futures.values().toArray(KafkaFuture[]::new))
                    .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            failure = e;
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        for (var e : futures.entrySet()) {
            if (e.getValue().isDone() && !e.getValue().isCompletedExceptionally()) {
                ends.put(e.getKey(), e.getValue().get().offset());
            }
        }
        if (ends.isEmpty() && failure != null) {
            throw new ExecutionException("no log end offset learned: " + failure.getMessage(), failure);
        }
        return ends;
    }

    private Admin admin(List<String> bootstrapServers) {
        if (admin == null || !bootstrapServers.equals(bootstrap)) {
            close();
            Properties props = new Properties();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, String.join(",", bootstrapServers));
            props.put(AdminClientConfig.CLIENT_ID_CONFIG, "tributary-coordinator-lag");
            props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.toIntExact(requestTimeout.toMillis()));
            props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Math.toIntExact(requestTimeout.toMillis()));
            admin = factory.apply(props);
            bootstrap = List.copyOf(bootstrapServers);
            log.info("consumer lag: log end offsets from brokers {}", bootstrap);
        }
        return admin;
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
            admin = null;
        }
    }
}
