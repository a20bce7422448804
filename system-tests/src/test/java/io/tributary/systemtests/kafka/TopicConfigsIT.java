package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.ApiError;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Topic configs (issue 17): every topic config Kafka 4.4 defines is either implemented with
 * Kafka's meaning or refused by name (the broker README's table). Differential ({@link
 * Differential}) where Tributary behaves as Kafka: the names DescribeConfigs lists for a new topic
 * (less the refused ones), the described values of a topic created with every implemented config,
 * and the tiered-storage configs on a cluster without tiered storage. The refused configs cannot be
 * differential (Kafka accepts them): on Kafka each test value is checked to be valid, on Tributary to
 * be refused with INVALID_CONFIG naming the key at CreateTopics, IncrementalAlterConfigs and
 * AlterConfigs, with and without {@code validate_only}.
 *
 * <p>{@code compression.type} and the level configs: the same answers and messages to bad values,
 * and a topic per codec receiving batches of another codec: what a consumer reads back and the codec
 * of the stored batches as a raw Fetch returns them agree with Kafka's ({@link TopicCompressionChecks}).
 *
 * <p>The admin-only scenarios run on every target at the same time ({@link
 * Differential#assertSameOutcomeAtOnce}: a few requests and waits for metadata, each target its own
 * topics); the codec one, which produces and consumes, one target after the other.
 */
@OnSharedTargets
class TopicConfigsIT {

    /**
     * The Kafka 4.4 topic configs Tributary refuses, each with a value Kafka accepts: the "refused"
     * rows of the broker README's table.
     */
    static final Map<String, String> REFUSED = new TreeMap<>(Map.ofEntries(
            Map.entry("errors.deadletterqueue.group.enable", "true"),
            Map.entry("follower.replication.throttled.replicas", "*"),
            Map.entry("leader.replication.throttled.replicas", "0:1"),
            Map.entry("max.decompressed.message.bytes", "1000000"),
            Map.entry("preallocate", "true"),
            Map.entry("segment.index.bytes", "1048576")));

    /**
     * A non-default value of every topic config Tributary implements (the tiered-storage ones as on
     * a Kafka cluster without tiered storage), as Kafka describes it back.
     */
    static final Map<String, String> IMPLEMENTED = new TreeMap<>(Map.ofEntries(
            Map.entry("cleanup.policy", "compact"),
            Map.entry("compression.gzip.level", "5"),
            Map.entry("compression.lz4.level", "10"),
            Map.entry("compression.type", "gzip"),
            Map.entry("compression.zstd.level", "-7"),
            Map.entry("delete.retention.ms", "1000"),
            Map.entry("file.delete.delay.ms", "1500"),
            Map.entry("flush.messages", "1000"),
            Map.entry("flush.ms", "2000"),
            Map.entry("index.interval.bytes", "1024"),
            Map.entry("local.retention.bytes", "5000"),
            Map.entry("local.retention.ms", "6000"),
            Map.entry("max.compaction.lag.ms", "700000"),
            Map.entry("max.message.bytes", "2000"),
            Map.entry("message.timestamp.after.max.ms", "8000"),
            Map.entry("message.timestamp.before.max.ms", "9000"),
            Map.entry("message.timestamp.type", "LogAppendTime"),
            Map.entry("min.cleanable.dirty.ratio", "0.2"),
            Map.entry("min.compaction.lag.ms", "100"),
            Map.entry("min.insync.replicas", "2"),
            Map.entry("remote.copy.lag.bytes", "300"),
            Map.entry("remote.copy.lag.ms", "-1"),
            Map.entry("remote.log.copy.disable", "true"),
            Map.entry("remote.log.delete.on.disable", "true"),
            Map.entry("remote.storage.enable", "false"),
            Map.entry("retention.bytes", "100000"),
            Map.entry("retention.ms", "100000"),
            Map.entry("segment.bytes", "1048576"),
            Map.entry("segment.jitter.ms", "50000"),
            Map.entry("segment.ms", "100000"),
            Map.entry("unclean.leader.election.enable", "true")));

    @Test
    void aNewTopicDescribesKafkasConfigNamesLessTheRefusedOnes() {
        Differential.assertSameOutcomeAtOnce((target, outcome) -> {
            String topic = Clients.uniqueTopic("configs-names");
            try (Admin admin = target.admin()) {
                Clients.createTopic(admin, topic, 1);
                Config config = describe(admin, topic);
                TreeSet<String> names = new TreeSet<>();
                config.entries().forEach(e -> names.add(e.name()));
                if (!target.kind().isTributary()) {
                    // the refused list names configs Kafka describes, not stale keys
                    assertThat(names).containsAll(REFUSED.keySet());
                }
                names.removeAll(REFUSED.keySet());
                outcome.add("described names less the refused", names);
                for (String name : names) {
                    ConfigEntry entry = config.get(name);
                    outcome.add(
                            name,
                            "type " + entry.type() + ", read-only " + entry.isReadOnly() + ", sensitive "
                                    + entry.isSensitive());
                }
            }
        });
    }

    @Test
    void aTopicCreatedWithEveryImplementedConfigDescribesTheirValues() {
        Differential.assertSameOutcomeAtOnce((target, outcome) -> {
            String topic = Clients.uniqueTopic("configs-all");
            try (Admin admin = target.admin()) {
                get(admin.createTopics(
                                List.of(new NewTopic(topic, Optional.of(1), Optional.empty()).configs(IMPLEMENTED)))
                        .all());
                Clients.awaitLeaders(admin, topic, 1);
                Config config = describe(admin, topic);
                for (String name : IMPLEMENTED.keySet()) {
                    ConfigEntry entry = config.get(name);
                    assertThat(entry).as(name).isNotNull();
                    outcome.add(name, entry.value() + " (" + entry.source() + ")");
                }
            }
        });
    }

    @Test
    void cleanupPolicyMayBeEmptyAsInKafka44() {
        Differential.assertSameOutcomeAtOnce((target, outcome) -> {
            String topic = Clients.uniqueTopic("configs-no-cleanup");
            try (Admin admin = target.admin()) {
                outcome.add("create cleanup.policy=''", create(admin, topic, Map.of("cleanup.policy", ""), false));
                Clients.awaitLeaders(admin, topic, 1);
                outcome.add("described", describeCleanupPolicy(admin, topic));
                outcome.add("append delete", change(admin, topic, "delete", AlterConfigOp.OpType.APPEND));
                Awaitility.await("cleanup.policy delete on " + target.kind())
                        .atMost(Clients.PATIENCE)
                        .untilAsserted(() ->
                                assertThat(describeCleanupPolicy(admin, topic)).startsWith("delete "));
                outcome.add("subtract delete", change(admin, topic, "delete", AlterConfigOp.OpType.SUBTRACT));
                Awaitility.await("no cleanup.policy on " + target.kind())
                        .atMost(Clients.PATIENCE)
                        .untilAsserted(() ->
                                assertThat(describeCleanupPolicy(admin, topic)).startsWith(" "));
                outcome.add("described after subtract", describeCleanupPolicy(admin, topic));
                outcome.add(
                        "create cleanup.policy='delete,'",
                        errorClass(create(
                                admin,
                                Clients.uniqueTopic("configs-no-cleanup"),
                                Map.of("cleanup.policy", "delete,"),
                                true)));
                outcome.add(
                        "create cleanup.policy=DELETE",
                        errorClass(create(
                                admin,
                                Clients.uniqueTopic("configs-no-cleanup"),
                                Map.of("cleanup.policy", "DELETE"),
                                true)));
            }
        });
    }

    private static String describeCleanupPolicy(Admin admin, String topic) throws Exception {
        ConfigEntry entry = describe(admin, topic).get("cleanup.policy");
        return entry.value() + " (" + entry.source() + ")";
    }

    private static String change(Admin admin, String topic, String value, AlterConfigOp.OpType op) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return answer(() -> get(admin.incrementalAlterConfigs(
                        Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry("cleanup.policy", value), op))))
                .all()));
    }

    @Test
    void tieredStorageConfigsAnswerAsOnKafkaWithoutTieredStorage() {
        Differential.assertSameOutcomeAtOnce((target, outcome) -> {
            String topic = Clients.uniqueTopic("configs-tiered");
            try (Admin admin = target.admin()) {
                outcome.add(
                        "create remote.storage.enable=true, validate only",
                        create(admin, topic, Map.of("remote.storage.enable", "true"), true));
                outcome.add(
                        "create remote.storage.enable=true",
                        create(admin, topic, Map.of("remote.storage.enable", "true"), false));
                outcome.add(
                        "create local.retention.ms=-3",
                        errorClass(create(admin, topic, Map.of("local.retention.ms", "-3"), false)));
                outcome.add(
                        "create remote.copy.lag.ms=-2",
                        errorClass(create(admin, topic, Map.of("remote.copy.lag.ms", "-2"), false)));
                outcome.add(
                        "create remote.log.copy.disable=maybe",
                        errorClass(create(admin, topic, Map.of("remote.log.copy.disable", "maybe"), false)));
                Clients.createTopic(admin, topic, 1);
                outcome.add(
                        "set remote.storage.enable=true, validate only",
                        set(admin, topic, "remote.storage.enable", "true", true));
                outcome.add(
                        "set remote.storage.enable=true", set(admin, topic, "remote.storage.enable", "true", false));
                outcome.add(
                        "set remote.storage.enable=false", set(admin, topic, "remote.storage.enable", "false", false));
                outcome.add("set local.retention.bytes=-2", set(admin, topic, "local.retention.bytes", "-2", false));
                Awaitility.await("local.retention.bytes set on " + target.kind())
                        .atMost(Clients.PATIENCE)
                        .untilAsserted(() -> assertThat(describe(admin, topic)
                                        .get("local.retention.bytes")
                                        .source())
                                .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG));
                Config config = describe(admin, topic);
                for (String name : List.of(
                        "local.retention.bytes",
                        "local.retention.ms",
                        "remote.copy.lag.bytes",
                        "remote.copy.lag.ms",
                        "remote.log.copy.disable",
                        "remote.log.delete.on.disable",
                        "remote.storage.enable")) {
                    ConfigEntry entry = config.get(name);
                    outcome.add(name, entry.value() + " (" + entry.source() + ", synonyms " + synonyms(entry) + ")");
                }
            }
        });
    }

    @Test
    void refusedConfigsAreValidOnKafkaAndRefusedByNameOnTributary() throws Exception {
        for (KafkaTargets.Kind kind : KafkaTargets.enabledList()) {
            KafkaTarget target = KafkaTargets.get(kind);
            String topic = Clients.uniqueTopic("configs-refused");
            try (Admin admin = target.admin()) {
                Clients.createTopic(admin, topic, 1);
                for (Map.Entry<String, String> e : REFUSED.entrySet()) {
                    Map<String, String> config = Map.of(e.getKey(), e.getValue());
                    List<String> answers = List.of(
                            create(admin, Clients.uniqueTopic("configs-refused"), config, true),
                            set(admin, topic, e.getKey(), e.getValue(), true),
                            alterConfigs(target, topic, config, true));
                    if (kind.isTributary()) {
                        // the real writes too: nothing is accepted and ignored
                        answers = List.of(
                                answers.get(0),
                                answers.get(1),
                                answers.get(2),
                                create(admin, Clients.uniqueTopic("configs-refused"), config, false),
                                set(admin, topic, e.getKey(), e.getValue(), false),
                                alterConfigs(target, topic, config, false));
                        assertThat(answers)
                                .as("%s on %s", e, kind)
                                .allSatisfy(answer -> assertThat(answer)
                                        .startsWith("org.apache.kafka.common.errors.InvalidConfigurationException")
                                        .contains("'" + e.getKey() + "'"));
                    } else {
                        assertThat(answers).as("%s on %s", e, kind).containsOnly("no error");
                    }
                }
            }
        }
    }

    @Test
    void badCompressionValuesGetKafkasAnswersAndMessages() {
        Differential.assertSameOutcomeAtOnce((target, outcome) -> {
            String topic = Clients.uniqueTopic("configs-codec");
            try (Admin admin = target.admin()) {
                Clients.createTopic(admin, topic, 1);
                for (Map.Entry<String, String> bad : List.of(
                        Map.entry("compression.type", "brotli"),
                        Map.entry("compression.type", "GZIP"),
                        Map.entry("compression.gzip.level", "0"),
                        Map.entry("compression.gzip.level", "10"),
                        Map.entry("compression.lz4.level", "18"),
                        Map.entry("compression.zstd.level", "23"),
                        Map.entry("compression.zstd.level", "-131073"),
                        Map.entry("compression.lz4.level", "high"))) {
                    Map<String, String> config = Map.of(bad.getKey(), bad.getValue());
                    outcome.add(
                            "create " + bad + ", validate only",
                            create(admin, Clients.uniqueTopic("configs-codec"), config, true));
                    outcome.add("create " + bad, create(admin, Clients.uniqueTopic("configs-codec"), config, false));
                    outcome.add(
                            "incremental set " + bad + ", validate only",
                            set(admin, topic, bad.getKey(), bad.getValue(), true));
                    outcome.add("incremental set " + bad, set(admin, topic, bad.getKey(), bad.getValue(), false));
                    outcome.add("alter " + bad, alterConfigs(target, topic, config, false));
                }
                outcome.add("set compression.type=zstd", set(admin, topic, "compression.type", "zstd", false));
                outcome.add(
                        "set compression.zstd.level=-131072",
                        set(admin, topic, "compression.zstd.level", "-131072", false));
                Awaitility.await("compression.zstd.level set on " + target.kind())
                        .atMost(Clients.PATIENCE)
                        .untilAsserted(() -> assertThat(describe(admin, topic)
                                        .get("compression.zstd.level")
                                        .value())
                                .isEqualTo("-131072"));
                Config config = describe(admin, topic);
                for (String name : List.of(
                        "compression.type",
                        "compression.gzip.level",
                        "compression.lz4.level",
                        "compression.zstd.level")) {
                    ConfigEntry entry = config.get(name);
                    outcome.add(
                            name,
                            entry.value() + " (" + entry.source() + ", " + entry.type() + ", synonyms "
                                    + synonyms(entry) + ")");
                }
            }
        });
    }

    @Test
    void eachTopicCodecStoresBatchesOfAnotherCodecAsKafkaDoes() {
        Differential.assertSameOutcome((target, outcome) -> TopicCompressionChecks.run(target, outcome));
    }

    /** Creates {@code topic} with {@code configs}: "no error", or the exception class and message. */
    private static String create(Admin admin, String topic, Map<String, String> configs, boolean validateOnly) {
        return answer(() -> get(admin.createTopics(
                        List.of(new NewTopic(topic, Optional.of(1), Optional.empty()).configs(configs)),
                        new CreateTopicsOptions().validateOnly(validateOnly))
                .all()));
    }

    /** IncrementalAlterConfigs SET of one config. */
    private static String set(Admin admin, String topic, String key, String value, boolean validateOnly) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return answer(() -> get(admin.incrementalAlterConfigs(
                        Map.of(
                                resource,
                                List.of(new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET))),
                        new AlterConfigsOptions().validateOnly(validateOnly))
                .all()));
    }

    /** The legacy AlterConfigs (no admin method since Kafka 4), raw: it replaces the topic's configs. */
    private static String alterConfigs(
            KafkaTarget target, String topic, Map<String, String> configs, boolean validateOnly) throws Exception {
        try (RawKafka raw = RawKafka.open(target.ports().getFirst())) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            List<AlterConfigsRequest.ConfigEntry> entries = configs.entrySet().stream()
                    .map(e -> new AlterConfigsRequest.ConfigEntry(e.getKey(), e.getValue()))
                    .toList();
            AlterConfigsResponse response = raw.connection()
                    .roundTrip(
                            new AlterConfigsRequest.Builder(
                                            Map.of(resource, new AlterConfigsRequest.Config(entries)), validateOnly)
                                    .build(raw.version(ApiKeys.ALTER_CONFIGS)),
                            AlterConfigsResponse.class);
            ApiError error = response.errors().get(resource);
            return error.error() == Errors.NONE
                    ? "no error"
                    : error.error().exception().getClass().getName() + ": " + error.message();
        }
    }

    private static String answer(BadRequestsIT.ThrowingAction action) {
        try {
            action.run();
            return "no error";
        } catch (ExecutionException e) {
            return e.getCause().getClass().getName() + ": " + e.getCause().getMessage();
        } catch (Exception e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    private static String errorClass(String answer) {
        int colon = answer.indexOf(':');
        return colon < 0 ? answer : answer.substring(0, colon);
    }

    private static Map<String, String> synonyms(ConfigEntry entry) {
        Map<String, String> synonyms = new LinkedHashMap<>();
        entry.synonyms().forEach(s -> synonyms.put(s.name(), s.value() + " " + s.source()));
        return synonyms;
    }

    private static Config describe(Admin admin, String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return get(admin.describeConfigs(List.of(resource), new DescribeConfigsOptions().includeSynonyms(true))
                        .all())
                .get(resource);
    }

    private static <T> T get(KafkaFuture<T> future) throws Exception {
        return future.get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }
}
