package io.tributary.broker.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.broker.api.DataPathMetrics;
import io.tributary.broker.api.DeleteRecordsHandler;
import io.tributary.broker.api.FetchHandler;
import io.tributary.broker.api.ListOffsetsHandler;
import io.tributary.broker.api.OffsetForLeaderEpochHandler;
import io.tributary.broker.api.ProduceHandler;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.log.TopicConfigDefaults;
import io.tributary.broker.log.index.IndexStore;
import io.tributary.broker.quota.ByteRateQuota;
import io.tributary.broker.quota.FetchThrottle;
import io.tributary.broker.quota.ProduceThrottle;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.replication.ReplicaManagerConfig;
import io.tributary.common.app.DataDirectory;
import io.tributary.common.protocol.AccessControl;
import java.time.Clock;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.DependsOn;

/**
 * The data path: the broker's RocksDB index store ({@code <data-dir>/index}), the {@link
 * ReplicaManager} (a {@code MetadataListener} bean: the metadata follower calls it with every
 * image), the Produce, Fetch, ListOffsets, OffsetForLeaderEpoch and DeleteRecords handlers (which
 * the Kafka listener registers), the background scheduler (retention, due flushes), and the
 * metrics.
 *
 * <p>Shutdown order: the listener stops first (a lifecycle bean), then the scheduler, then the
 * replica manager closes every log cleanly (so the next start does not rescan), then the index
 * store; each depends on the next, so Spring destroys them in that order.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({LogProperties.class, ReplicaProperties.class, LogCleanerProperties.class})
public class ReplicaConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ReplicaConfiguration.class);

    /** The index store's directory under the data directory. */
    static final String INDEX_DIR = "index";

    @Bean(destroyMethod = "close")
    IndexStore indexStore(DataDirectory dataDirectory, ReplicaProperties properties) {
        return IndexStore.open(dataDirectory.path().resolve(INDEX_DIR), properties.indexBufferedEntries());
    }

    /**
     * Deletes the data of deleted topics. Closing it waits for the deletions already queued (each
     * is bounded: one directory and one partition's index range), and it closes before the index
     * store it writes to.
     */
    @Bean(destroyMethod = "close")
    @DependsOn("indexStore")
    ExecutorService replicaDeleteExecutor(ReplicaProperties properties) {
        return Executors.newFixedThreadPool(
                properties.deleteThreads(),
                Thread.ofPlatform().name("replica-delete-", 0).daemon(true).factory());
    }

    @Bean(destroyMethod = "close")
    ReplicaManager replicaManager(
            BrokerProperties broker,
            DataDirectory dataDirectory,
            LogProperties logProperties,
            IndexStore indexStore,
            ExecutorService replicaDeleteExecutor,
            ReplicaProperties replicaProperties) {
        var config = new ReplicaManagerConfig(
                broker.id(),
                dataDirectory.path(),
                logProperties.toLogConfig(),
                logProperties.minInsyncReplicas(),
                logProperties.toProducerStateConfig(),
                replicaProperties.rollFlushQueue());
        return new ReplicaManager(config, indexStore, Clock.systemUTC(), replicaDeleteExecutor);
    }

    /**
     * Retention, due flushes, deletion of retired segment files and high-watermark checkpoints, on one platform thread; stopped before the logs close. Closing it
     * cancels the periodic runs and waits for a run in progress (never interrupts it: an interrupt
     * during file I/O would close a segment's channel).
     */
    @Bean(destroyMethod = "close")
    ScheduledExecutorService replicaScheduler(ReplicaManager replicaManager, ReplicaProperties properties) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("replica-scheduler").daemon(true).factory());
        long retentionMs = properties.retentionCheckInterval().toMillis();
        scheduler.scheduleWithFixedDelay(
                () -> guarded("retention", () -> replicaManager.runRetention(properties.retentionSegmentsPerRun())),
                retentionMs,
                retentionMs,
                TimeUnit.MILLISECONDS);
        long flushMs = properties.flushCheckInterval().toMillis();
        scheduler.scheduleWithFixedDelay(
                () -> guarded("flush", replicaManager::flushIfDue), flushMs, flushMs, TimeUnit.MILLISECONDS);
        long retiredMs = properties.retiredSegmentsCheckInterval().toMillis();
        scheduler.scheduleWithFixedDelay(
                () -> guarded("retired segment deletion", replicaManager::deleteRetiredSegments),
                retiredMs,
                retiredMs,
                TimeUnit.MILLISECONDS);
        long checkpointMs = properties.highWatermarkCheckpointInterval().toMillis();
        scheduler.scheduleWithFixedDelay(
                () -> guarded("high-watermark checkpoint", replicaManager::checkpointHighWatermarks),
                checkpointMs,
                checkpointMs,
                TimeUnit.MILLISECONDS);
        return scheduler;
    }

    /**
     * The log cleaner ({@link LogCleanerRunner}): stopped, like the replica scheduler, before the logs
     * close; a pass running then ends at its next read. Its meters: {@link MicrometerCleanerMetrics}.
     */
    @Bean(destroyMethod = "close")
    LogCleanerRunner logCleanerRunner(
            ReplicaManager replicaManager, LogCleanerProperties properties, MeterRegistry registry) {
        return LogCleanerRunner.start(replicaManager, properties, new MicrometerCleanerMetrics(registry));
    }

    static void guarded(String task, Runnable work) {
        try {
            work.run();
        } catch (RuntimeException e) {
            // A failed run must not cancel the schedule; the next run retries.
            log.error("Background {} run failed", task, e);
        }
    }

    /**
     * The broker's topic-config defaults (its {@code tributary.broker.log.*} settings), as the admin
     * APIs report them (DescribeConfigs, CreateTopics).
     */
    @Bean
    TopicConfigDefaults topicConfigDefaults(LogProperties log) {
        return TopicConfigDefaults.of(log.toLogConfig(), log.minInsyncReplicas());
    }

    @Bean
    DataPathMetrics dataPathMetrics(MeterRegistry registry, ReplicaManager replicaManager) {
        for (Partition.Role role : Partition.Role.values()) {
            Gauge.builder("tributary.broker.partitions", replicaManager, m -> m.partitionCount(role))
                    .description("Partition replicas on this broker, by role")
                    .tag("role", role.name().toLowerCase(Locale.ROOT))
                    .register(registry);
        }
        Gauge.builder("tributary.broker.partitions.under.replicated", replicaManager, m -> m.underReplicatedCount())
                .description("Partitions this broker leads whose ISR is smaller than the replica set")
                .register(registry);
        return new MicrometerDataPathMetrics(registry);
    }

    /** Produce, under the cluster's {@code producer_byte_rate} quotas ({@link ProduceThrottle}). */
    @Bean
    ProduceThrottle produceHandler(
            ReplicaManager replicaManager,
            MetadataView metadataView,
            ReplicaProperties properties,
            DataPathMetrics metrics,
            AccessControl accessControl,
            @Qualifier("produceQuota") ByteRateQuota quota) {
        return new ProduceThrottle(
                new ProduceHandler(
                        replicaManager, metadataView, properties.produceMaxTimeout(), metrics, accessControl),
                quota);
    }

    /** Fetch, consumers under the cluster's {@code consumer_byte_rate} quotas ({@link FetchThrottle}). */
    @Bean
    FetchThrottle fetchHandler(
            ReplicaManager replicaManager,
            MetadataView metadataView,
            ReplicaProperties properties,
            DataPathMetrics metrics,
            AccessControl accessControl,
            @Qualifier("fetchQuota") ByteRateQuota quota) {
        return new FetchThrottle(
                new FetchHandler(replicaManager, metadataView, properties.fetchMaxWait(), metrics, accessControl),
                quota);
    }

    @Bean
    ListOffsetsHandler listOffsetsHandler(
            ReplicaManager replicaManager, MetadataView metadataView, AccessControl accessControl) {
        return new ListOffsetsHandler(replicaManager, metadataView, accessControl);
    }

    @Bean
    OffsetForLeaderEpochHandler offsetForLeaderEpochHandler(
            ReplicaManager replicaManager, MetadataView metadataView, AccessControl accessControl) {
        return new OffsetForLeaderEpochHandler(replicaManager, metadataView, accessControl);
    }

    @Bean
    DeleteRecordsHandler deleteRecordsHandler(
            ReplicaManager replicaManager, MetadataView metadataView, AccessControl accessControl) {
        return new DeleteRecordsHandler(replicaManager, metadataView, accessControl);
    }

    /** The data path's counters. */
    static final class MicrometerDataPathMetrics implements DataPathMetrics {
        private final Counter bytesIn;
        private final Counter messagesIn;
        private final Counter bytesOutConsumer;
        private final Counter bytesOutReplica;
        private final Counter waitsSatisfied;
        private final Counter waitsExpired;
        private final Counter recompressedBatches;
        private final Counter recompressedBytesIn;
        private final Counter recompressedBytesOut;

        MicrometerDataPathMetrics(MeterRegistry registry) {
            bytesIn = Counter.builder("tributary.broker.bytes.in")
                    .description("Record-batch bytes appended by Produce (retried duplicates not counted)")
                    .register(registry);
            messagesIn = Counter.builder("tributary.broker.messages.in")
                    .description("Records appended by Produce")
                    .register(registry);
            bytesOutConsumer = bytesOut(registry, "consumer");
            bytesOutReplica = bytesOut(registry, "replica");
            waitsSatisfied = fetchWaits(registry, "satisfied");
            waitsExpired = fetchWaits(registry, "expired");
            recompressedBatches = Counter.builder("tributary.broker.recompressed.batches")
                    .description("Produced batches the leader rewrote into the topic's compression.type")
                    .register(registry);
            recompressedBytesIn = Counter.builder("tributary.broker.recompressed.bytes.in")
                    .description("Bytes of produced batches rewritten into the topic's compression.type, as sent")
                    .register(registry);
            recompressedBytesOut = Counter.builder("tributary.broker.recompressed.bytes.out")
                    .description("Bytes of produced batches rewritten into the topic's compression.type, as stored")
                    .register(registry);
        }

        private static Counter bytesOut(MeterRegistry registry, String source) {
            return Counter.builder("tributary.broker.bytes.out")
                    .description("Record bytes returned by Fetch, by who fetched")
                    .tag("source", source)
                    .register(registry);
        }

        private static Counter fetchWaits(MeterRegistry registry, String outcome) {
            return Counter.builder("tributary.broker.fetch.waits")
                    .description("Fetches that waited for min_bytes, by how the wait ended")
                    .tag("outcome", outcome)
                    .register(registry);
        }

        @Override
        public void produced(long bytes, long records) {
            bytesIn.increment(bytes);
            messagesIn.increment(records);
        }

        @Override
        public void fetched(long bytes, FetchSource source) {
            (source == FetchSource.REPLICA ? bytesOutReplica : bytesOutConsumer).increment(bytes);
        }

        @Override
        public void recompressed(int batches, long bytesIn, long bytesOut) {
            recompressedBatches.increment(batches);
            recompressedBytesIn.increment(bytesIn);
            recompressedBytesOut.increment(bytesOut);
        }

        @Override
        public void fetchWaited(FetchWaitOutcome outcome) {
            (outcome == FetchWaitOutcome.SATISFIED ? waitsSatisfied : waitsExpired).increment();
        }
    }
}
