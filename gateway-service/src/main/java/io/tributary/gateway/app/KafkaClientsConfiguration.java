package io.tributary.gateway.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.gateway.admin.TopicCatalog;
import io.tributary.gateway.admin.TopicsController;
import io.tributary.gateway.consume.ConsumerPool;
import io.tributary.gateway.consume.EventStreamController;
import io.tributary.gateway.consume.FetchController;
import io.tributary.gateway.consume.FetchProperties;
import io.tributary.gateway.consume.SseProperties;
import io.tributary.gateway.consume.TableController;
import io.tributary.gateway.consume.TableProperties;
import io.tributary.gateway.consume.TableReaders;
import io.tributary.gateway.groups.GroupStreamController;
import io.tributary.gateway.groups.GroupsController;
import io.tributary.gateway.groups.GroupsProperties;
import io.tributary.gateway.idempotency.IdempotencyLog;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.produce.Acks;
import io.tributary.gateway.produce.IdempotencyProperties;
import io.tributary.gateway.produce.ProduceController;
import io.tributary.gateway.produce.ProduceProperties;
import io.tributary.gateway.produce.Producers;
import io.tributary.gateway.sse.RecordEvent;
import io.tributary.gateway.sse.SharedTailReaders;
import io.tributary.gateway.table.TableReader;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.json.JsonMapper;

/**
 * The gateway's Kafka clients (one AdminClient, one producer per acks level, a bounded consumer
 * pool) and the controllers that use them. Clients connect lazily: the gateway starts, and stays
 * live, without a reachable cluster; requests then answer 503.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({
    ProduceProperties.class,
    FetchProperties.class,
    SseProperties.class,
    GroupsProperties.class,
    IdempotencyProperties.class,
    TableProperties.class
})
class KafkaClientsConfiguration {

    /** How long a topic's partition count is remembered (partitions are rarely added). */
    private static final Duration TOPIC_CACHE_TTL = Duration.ofSeconds(10);

    @Bean(destroyMethod = "close")
    Admin kafkaAdmin(GatewayProperties gateway) {
        Map<String, Object> config = common(gateway, "tributary-gateway-admin");
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)
                gateway.clusterTimeout().toMillis());
        return Admin.create(config);
    }

    @Bean
    TopicCatalog topicCatalog(Admin admin, GatewayProperties gateway) {
        return new TopicCatalog(admin, gateway.clusterTimeout(), TOPIC_CACHE_TTL, InstantSource.system());
    }

    @Bean(destroyMethod = "close")
    Producers producers(GatewayProperties gateway, ProduceProperties produce) {
        return new Producers((acks, load) -> {
            boolean multi = load == Producers.Load.MULTI_RECORD;
            Map<String, Object> config =
                    common(gateway, "tributary-gateway-acks-" + acks.apiName() + (multi ? "-multi" : ""));
            config.put(ProducerConfig.ACKS_CONFIG, acks.kafkaValue());
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, acks == Acks.ALL);
            config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            long timeoutMs = gateway.clusterTimeout().toMillis();
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
            config.put(ProducerConfig.LINGER_MS_CONFIG, (int)
                    produce.producerLinger().toMillis());
            DataSize batchSize = multi ? produce.producerMultiRecordBatchSize() : produce.producerBatchSize();
            config.put(ProducerConfig.BATCH_SIZE_CONFIG, (int) batchSize.toBytes());
            config.put(
                    ProducerConfig.BUFFER_MEMORY_CONFIG,
                    produce.producerBufferMemory().toBytes());
            config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) (timeoutMs + 5));
            // room for one record at the gateway's limit plus Kafka's batch and record overhead
            config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, (int)
                    Math.min(Integer.MAX_VALUE, produce.maxRecordSize().toBytes() + 64 * 1024));
            return new KafkaProducer<byte[], byte[]>(config);
        });
    }

    @Bean(destroyMethod = "close")
    ConsumerPool consumerPool(GatewayProperties gateway, FetchProperties fetch) {
        return new ConsumerPool(
                () -> consumer(gateway, "tributary-gateway-fetch", fetch.maxRecords(), Map.of()),
                fetch.consumers(),
                fetch.acquireTimeout());
    }

    /** How long a stream's reader waits for a free SSE consumer before trying again. */
    private static final Duration SSE_CONSUMER_WAIT = Duration.ofSeconds(1);

    /** Records one SSE poll hands over at most (they then wait in the stream's bounded buffer). */
    private static final int SSE_MAX_POLL_RECORDS = 500;

    @Bean(destroyMethod = "close")
    EventStreamController eventStreamController(
            Admin admin,
            GatewayProperties gateway,
            SseProperties sse,
            GatewayMetrics metrics,
            SharedTailReaders shared,
            TableReaders tables) {
        ConsumerPool ssePool = new ConsumerPool(
                () -> {
                    // one poll brings about buffer-size bytes at most (a larger record still comes
                    // alone), so what a stream holds before its buffer stays near that bound
                    int bytes =
                            (int) Math.min(Integer.MAX_VALUE, sse.bufferSize().toBytes());
                    return consumer(
                            gateway,
                            "tributary-gateway-sse",
                            SSE_MAX_POLL_RECORDS,
                            Map.of(
                                    ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                                    bytes,
                                    ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                                    bytes));
                },
                sse.consumers(),
                SSE_CONSUMER_WAIT);
        return new EventStreamController(admin, ssePool, shared, tables, sse, gateway.clusterTimeout(), metrics);
    }

    /**
     * The readers of tables and SSE snapshots: a pool of {@code table.readers} consumers of their own
     * (a table holds one for its whole read), each fetch at most {@code table.fetch-size}.
     */
    @Bean(destroyMethod = "close")
    TableReaders tableReaders(GatewayProperties gateway, TableProperties table, SseProperties sse) {
        int bytes = (int) table.fetchSize().toBytes();
        ConsumerPool pool = new ConsumerPool(
                () -> consumer(
                        gateway,
                        "tributary-gateway-table",
                        SSE_MAX_POLL_RECORDS,
                        Map.of(
                                ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                                bytes,
                                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                                bytes)),
                table.readers(),
                table.acquireTimeout(),
                "table");
        return new TableReaders(
                pool,
                new TableReader.Limits(table.maxKeys(), table.maxScans(), sse.pollWait(), gateway.clusterTimeout()));
    }

    @Bean
    TableController tableController(
            Admin admin, TableReaders tables, GatewayProperties gateway, GatewayMetrics metrics, JsonMapper json) {
        return new TableController(admin, tables, gateway.clusterTimeout(), metrics, json);
    }

    /**
     * Group streams: one consumer per stream, a member of its group through KIP-848's protocol
     * ({@code group.protocol=consumer}); with {@code member=}, a static member ({@code
     * group.instance.id}). Its {@code client.id} carries this replica's advertised URL, so other
     * replicas find the stream of a member for a manual commit.
     */
    @Bean
    GroupStreamController groupStreamController(
            Admin admin,
            GatewayProperties gateway,
            SseProperties sse,
            GroupsProperties groups,
            GatewayMetrics metrics) {
        String clientId = GroupsController.CLIENT_ID
                + groups.replicaUrl().map(u -> "@" + u).orElse("");
        int bytes = (int) Math.min(Integer.MAX_VALUE, sse.bufferSize().toBytes());
        return new GroupStreamController(
                admin,
                (group, member) -> {
                    Map<String, Object> extra = new HashMap<>();
                    extra.put(ConsumerConfig.GROUP_ID_CONFIG, group);
                    extra.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
                    member.ifPresent(m -> extra.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, m));
                    extra.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, bytes);
                    extra.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, bytes);
                    // a stream reads only the records it was given; the default wait keeps idle
                    // members from fetching in a tight loop
                    extra.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int)
                            sse.pollWait().toMillis());
                    return consumer(gateway, clientId, SSE_MAX_POLL_RECORDS, extra);
                },
                sse,
                groups,
                gateway.clusterTimeout(),
                metrics);
    }

    @Bean
    GroupsController groupsController(
            Admin admin,
            GroupStreamController streams,
            GroupsProperties groups,
            GatewayProperties gateway,
            JsonMapper json) {
        return new GroupsController(admin, streams, groups, gateway.clusterTimeout(), json);
    }

    /** A shared reader's one fetch brings at most this many stream buffers' worth of bytes. */
    private static final int SHARED_FETCH_BUFFERS = 16;

    /** The shared tail readers of SSE streams (one upstream fetch for every stream at a partition's end). */
    @Bean(destroyMethod = "close")
    SharedTailReaders sharedTailReaders(GatewayProperties gateway, SseProperties sse, GatewayMetrics metrics) {
        int bytes = (int) Math.min(Integer.MAX_VALUE, sse.bufferSize().toBytes());
        SharedTailReaders shared = new SharedTailReaders(
                () -> consumer(
                        gateway,
                        "tributary-gateway-sse-shared",
                        SSE_MAX_POLL_RECORDS,
                        // a partition's share of a fetch is about one stream buffer; a whole fetch
                        // (all of a shard's partitions) at most SHARED_FETCH_BUFFERS of them
                        Map.of(
                                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                                bytes,
                                ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
                                (int) Math.min(Integer.MAX_VALUE, (long) bytes * SHARED_FETCH_BUFFERS))),
                sse.sharedConsumers(),
                sse.pollWait(),
                sse.tailHistorySize().toBytes(),
                RecordEvent::of,
                new SharedTailReaders.Listener() {
                    @Override
                    public void fetched() {
                        metrics.upstreamFetch("shared");
                    }

                    @Override
                    public void delivered(String topic, int records) {
                        metrics.consumed(topic, "sse", records);
                    }
                });
        metrics.sharedReaders(shared::readers, shared::attachedStreams);
        return shared;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(
            GatewayProperties gateway, String clientId, int maxPollRecords, Map<String, Object> extra) {
        Map<String, Object> config = common(gateway, clientId);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        // A reused consumer first waits out the fetch its previous borrower left in flight (a
        // consumer sends one fetch per broker at a time); a short broker-side wait bounds that
        // delay. A long poll still waits its whole time, in several broker fetches.
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)
                gateway.clusterTimeout().toMillis());
        config.putAll(extra);
        return new KafkaConsumer<>(config);
    }

    @Bean
    GatewayMetrics gatewayMetrics(MeterRegistry registry) {
        return new GatewayMetrics(registry);
    }

    /** How many cluster timeouts a claim may take at most: its append, its read, the produce, the result. */
    private static final int CLAIM_STEPS = 4;

    /**
     * The idempotency log ({@code Idempotency-Key}): appends with the {@code acks=all} producer, tails
     * the internal topic with a consumer of its own. Its replica id is {@code tributary.instance} and a
     * random suffix, unique per process even when replicas share an instance name.
     */
    @Bean(destroyMethod = "close")
    IdempotencyLog idempotencyLog(
            Admin admin,
            Producers producers,
            GatewayProperties gateway,
            IdempotencyProperties idempotency,
            SseProperties sse,
            GatewayMetrics metrics,
            JsonMapper json,
            Environment environment) {
        if (idempotency.claimTimeout().compareTo(gateway.clusterTimeout().multipliedBy(CLAIM_STEPS)) < 0) {
            throw new IllegalArgumentException("tributary.gateway.idempotency.claim-timeout must be at least "
                    + CLAIM_STEPS + " x tributary.gateway.cluster-timeout ("
                    + gateway.clusterTimeout().multipliedBy(CLAIM_STEPS) + "), got " + idempotency.claimTimeout());
        }
        String replicaId = environment.getProperty("tributary.instance", "gateway") + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong());
        IdempotencyLog log = new IdempotencyLog(
                new IdempotencyLog.Config(
                        idempotency.topic(),
                        idempotency.topicPartitions(),
                        idempotency.topicReplicationFactor() < 0
                                ? Optional.empty()
                                : Optional.of((short) idempotency.topicReplicationFactor()),
                        idempotency.keyTtl(),
                        idempotency.claimTimeout(),
                        idempotency.maxClockSkew(),
                        idempotency.cacheMaxEntries(),
                        idempotency.cacheMaxSize().toBytes(),
                        idempotency.maxStoredResponseSize().toBytes(),
                        gateway.clusterTimeout(),
                        sse.pollWait()),
                admin,
                () -> producers.get(Acks.ALL),
                () -> consumer(
                        gateway,
                        "tributary-gateway-idempotency",
                        SSE_MAX_POLL_RECORDS,
                        Map.of(
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                "earliest",
                                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                                (int) sse.pollWait().toMillis())),
                json,
                InstantSource.system(),
                replicaId,
                new IdempotencyLog.Listener() {
                    @Override
                    public void decided(String outcome) {
                        metrics.idempotencyClaim(outcome);
                    }

                    @Override
                    public void scanned() {
                        metrics.idempotencyScan();
                    }
                });
        metrics.idempotencyCache(log::cachedKeys);
        return log;
    }

    @Bean
    ProduceController produceController(
            Producers producers,
            TopicCatalog catalog,
            ProduceProperties produce,
            GatewayProperties gateway,
            GatewayMetrics metrics,
            JsonMapper json,
            IdempotencyLog idempotencyLog,
            IdempotencyProperties idempotency) {
        return new ProduceController(
                producers,
                catalog,
                produce,
                gateway.clusterTimeout(),
                metrics,
                json,
                idempotencyLog,
                idempotency.claimTimeout());
    }

    @Bean
    FetchController fetchController(
            ConsumerPool pool,
            TopicCatalog catalog,
            FetchProperties fetch,
            GatewayProperties gateway,
            GatewayMetrics metrics) {
        return new FetchController(pool, catalog, fetch, gateway.clusterTimeout(), metrics);
    }

    @Bean
    TopicsController topicsController(Admin admin, TopicCatalog catalog, GatewayProperties gateway) {
        return new TopicsController(admin, catalog, gateway.clusterTimeout());
    }

    /**
     * The settings every client shares: the operator's {@code client-properties} (its login), then
     * the gateway's own, which win (the callers add theirs after these).
     */
    private static Map<String, Object> common(GatewayProperties gateway, String clientId) {
        Map<String, Object> config = new HashMap<>(gateway.clientProperties());
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",", gateway.bootstrapServers()));
        config.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, (int)
                Math.min(30_000, gateway.clusterTimeout().toMillis()));
        return config;
    }
}
