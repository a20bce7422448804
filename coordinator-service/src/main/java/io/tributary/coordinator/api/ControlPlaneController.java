package io.tributary.coordinator.api;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.coordinator.api.ControlDtos.AclFilterResultJson;
import io.tributary.coordinator.api.ControlDtos.AclJson;
import io.tributary.coordinator.api.ControlDtos.AclResultJson;
import io.tributary.coordinator.api.ControlDtos.AllocateProducerIdsRequest;
import io.tributary.coordinator.api.ControlDtos.AlterClientQuotasJson;
import io.tributary.coordinator.api.ControlDtos.AlterClientQuotasRequest;
import io.tributary.coordinator.api.ControlDtos.AlterConfigsRequest;
import io.tributary.coordinator.api.ControlDtos.AlterPartitionRequest;
import io.tributary.coordinator.api.ControlDtos.AlterScramCredentialsJson;
import io.tributary.coordinator.api.ControlDtos.AlterScramCredentialsRequest;
import io.tributary.coordinator.api.ControlDtos.BrokerJson;
import io.tributary.coordinator.api.ControlDtos.ClusterJson;
import io.tributary.coordinator.api.ControlDtos.CoordinatorJson;
import io.tributary.coordinator.api.ControlDtos.CreateAclsJson;
import io.tributary.coordinator.api.ControlDtos.CreateAclsRequest;
import io.tributary.coordinator.api.ControlDtos.CreatePartitionsRequest;
import io.tributary.coordinator.api.ControlDtos.CreateTopicRequest;
import io.tributary.coordinator.api.ControlDtos.DeleteAclsJson;
import io.tributary.coordinator.api.ControlDtos.DeleteAclsRequest;
import io.tributary.coordinator.api.ControlDtos.EndpointJson;
import io.tributary.coordinator.api.ControlDtos.HeartbeatRequest;
import io.tributary.coordinator.api.ControlDtos.MetadataJson;
import io.tributary.coordinator.api.ControlDtos.PartitionJson;
import io.tributary.coordinator.api.ControlDtos.PartitionWriteJson;
import io.tributary.coordinator.api.ControlDtos.ProducerIdsJson;
import io.tributary.coordinator.api.ControlDtos.QuotaEntityPartJson;
import io.tributary.coordinator.api.ControlDtos.QuotaEntryJson;
import io.tributary.coordinator.api.ControlDtos.QuotaOpJson;
import io.tributary.coordinator.api.ControlDtos.RegisterBrokerRequest;
import io.tributary.coordinator.api.ControlDtos.ScramDeletionJson;
import io.tributary.coordinator.api.ControlDtos.ScramResultJson;
import io.tributary.coordinator.api.ControlDtos.ScramUpsertionJson;
import io.tributary.coordinator.api.ControlDtos.TopicJson;
import io.tributary.coordinator.api.ControlDtos.TopicWriteJson;
import io.tributary.coordinator.api.ControlDtos.TopicsJson;
import io.tributary.coordinator.api.ControlDtos.VersionJson;
import io.tributary.coordinator.metadata.Endpoint;
import io.tributary.coordinator.metadata.InvalidPartitionsException;
import io.tributary.coordinator.metadata.InvalidRequestException;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.PartitionState;
import io.tributary.coordinator.metadata.Topic;
import io.tributary.coordinator.metadata.TopicExistsException;
import io.tributary.coordinator.metadata.UnknownTopicException;
import io.tributary.coordinator.metadata.raft.MetadataClient;
import io.tributary.coordinator.metadata.raft.MetadataRaftNode;
import io.tributary.coordinator.placement.ReplicaPlacer;
import io.tributary.coordinator.security.AclChanges;
import io.tributary.coordinator.security.QuotaChanges;
import io.tributary.coordinator.security.ScramAlterations;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The control plane's endpoints ({@code /internal/v1}). Writes and heartbeats run on the Raft leader
 * (a follower answers 307 to the leader's same URL, see {@link LeaderRoute}); reads are answered by
 * any voter from the image it has applied, with that image's version.
 *
 * <p>Thread-safety: stateless; one virtual thread per request, which parks in a long poll.
 */
@RestController
@RequestMapping(path = "/internal/v1", produces = MediaType.APPLICATION_JSON_VALUE)
public class ControlPlaneController {

    private final MetadataRaftNode node;
    private final MetadataClient client;
    private final Heartbeats heartbeats;
    private final MetadataHistory history;
    private final LeaderRoute route;
    private final List<String> raftPeers;
    private final List<String> kafkaPeers;
    private final ControlPlaneProperties properties;
    private final int maxPartitionsPerTopic;
    private final ScramAlterations scramAlterations;
    private final AclChanges aclChanges;
    private final QuotaChanges quotaChanges;
    private final InstantSource clock;

    public ControlPlaneController(
            MetadataRaftNode node,
            MetadataClient client,
            Heartbeats heartbeats,
            MetadataHistory history,
            int selfId,
            List<String> httpPeers,
            List<String> raftPeers,
            List<String> kafkaPeers,
            ControlPlaneProperties properties,
            int maxPartitionsPerTopic,
            ScramAlterations scramAlterations,
            AclChanges aclChanges,
            QuotaChanges quotaChanges,
            InstantSource clock) {
        this.node = node;
        this.client = client;
        this.heartbeats = heartbeats;
        this.history = history;
        this.route = new LeaderRoute(selfId, httpPeers);
        this.raftPeers = List.copyOf(raftPeers);
        this.kafkaPeers = List.copyOf(kafkaPeers);
        this.properties = properties;
        this.maxPartitionsPerTopic = maxPartitionsPerTopic;
        this.scramAlterations = scramAlterations;
        this.aclChanges = aclChanges;
        this.quotaChanges = quotaChanges;
        this.clock = clock;
    }

    // ---- brokers

    @PostMapping(path = "/brokers", consumes = MediaType.APPLICATION_JSON_VALUE)
    VersionJson register(@RequestBody RegisterBrokerRequest body, HttpServletRequest request) throws IOException {
        requireLeader(request);
        int brokerId = required(body.brokerId(), "brokerId");
        BrokerAuthFilter.requireCaller(request, brokerId);
        requireBootstrapped();
        UUID incarnationId = required(body.incarnationId(), "incarnationId");
        List<EndpointJson> endpoints = required(body.endpoints(), "endpoints");
        List<Endpoint> parsed = new ArrayList<>();
        for (EndpointJson e : endpoints) {
            if (e == null) {
                throw new InvalidRequestException("an endpoint is null");
            }
            parsed.add(new Endpoint(
                    required(e.listener(), "endpoints[].listener"),
                    required(e.host(), "endpoints[].host"),
                    required(e.port(), "endpoints[].port")));
        }
        long version = client.submit(new MetadataCommand.RegisterBroker(
                brokerId, incarnationId, parsed, Optional.ofNullable(body.rack()), clock.millis()));
        return new VersionJson(version);
    }

    @PostMapping(path = "/brokers/{id}/heartbeat", consumes = MediaType.APPLICATION_JSON_VALUE)
    VersionJson heartbeat(
            @PathVariable("id") int brokerId, @RequestBody HeartbeatRequest body, HttpServletRequest request)
            throws IOException {
        requireLeader(request);
        BrokerAuthFilter.requireCaller(request, brokerId);
        heartbeats.heartbeat(brokerId, required(body.incarnationId(), "incarnationId"));
        return new VersionJson(image().version());
    }

    /**
     * A broker's controlled shutdown (it is stopping cleanly): fences this incarnation now, through
     * Raft, so its leaderships move at once instead of when its session expires. Answers the
     * version that has it fenced; the broker waits for its image to reach it before it closes its
     * listener.
     */
    @PostMapping(path = "/brokers/{id}/shutdown", consumes = MediaType.APPLICATION_JSON_VALUE)
    VersionJson shutdown(
            @PathVariable("id") int brokerId, @RequestBody HeartbeatRequest body, HttpServletRequest request)
            throws IOException {
        requireLeader(request);
        BrokerAuthFilter.requireCaller(request, brokerId);
        return new VersionJson(heartbeats.shutdown(brokerId, required(body.incarnationId(), "incarnationId")));
    }

    @PostMapping(path = "/topics/{topic}/partitions/{partition}/alter", consumes = MediaType.APPLICATION_JSON_VALUE)
    PartitionWriteJson alterPartition(
            @PathVariable("topic") String topic,
            @PathVariable("partition") int partition,
            @RequestBody AlterPartitionRequest body,
            HttpServletRequest request)
            throws IOException, InterruptedException {
        requireLeader(request);
        int leaderId = required(body.leaderId(), "leaderId");
        // Only a partition's leader alters its ISR: as itself.
        BrokerAuthFilter.requireCaller(request, leaderId);
        long version = client.submit(new MetadataCommand.AlterPartition(
                topic,
                partition,
                leaderId,
                required(body.leaderEpoch(), "leaderEpoch"),
                required(body.partitionEpoch(), "partitionEpoch"),
                required(body.isr(), "isr")));
        Topic t = imageAt(version).topic(topic);
        if (partition < 0 || partition >= t.partitions().size()) {
            throw new UnknownTopicException("topic " + topic + " has no partition " + partition);
        }
        PartitionState p = t.partitions().get(partition);
        return new PartitionWriteJson(version, topic, PartitionJson.of(partition, p));
    }

    /**
     * A block of producer ids for a broker's idempotent producers (Kafka's AllocateProducerIds): the
     * ids {@code [firstProducerId, firstProducerId + count)} are the broker's alone, for good.
     */
    @PostMapping(path = "/producer-ids", consumes = MediaType.APPLICATION_JSON_VALUE)
    ProducerIdsJson allocateProducerIds(@RequestBody AllocateProducerIdsRequest body, HttpServletRequest request)
            throws IOException {
        requireLeader(request);
        int brokerId = required(body.brokerId(), "brokerId");
        BrokerAuthFilter.requireCaller(request, brokerId);
        int count = required(body.count(), "count");
        image().broker(brokerId);
        MetadataClient.ProducerIdBlock block = client.allocateProducerIds(brokerId, count);
        return new ProducerIdsJson(block.metadataVersion(), block.firstProducerId(), block.count());
    }

    @GetMapping("/metadata")
    MetadataJson metadata(
            @RequestParam(name = "after", required = false) Long after,
            @RequestParam(name = "max_wait_ms", defaultValue = "0") long maxWaitMs)
            throws InterruptedException {
        if (maxWaitMs < 0 || maxWaitMs > properties.maxWait().toMillis()) {
            throw new ControlProblemException(
                    ControlProblem.INVALID_PARAMETER,
                    "max_wait_ms must be 0..%d, got %d"
                            .formatted(properties.maxWait().toMillis(), maxWaitMs));
        }
        syncHistory();
        if (after == null) {
            return MetadataJson.of(history.full());
        }
        if (after < 0) {
            throw new ControlProblemException(
                    ControlProblem.INVALID_PARAMETER, "after must be 0 or more, got " + after);
        }
        return MetadataJson.of(history.changesSince(after, Duration.ofMillis(maxWaitMs)));
    }

    // ---- topics and the cluster

    @PostMapping(path = "/topics", consumes = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<TopicWriteJson> createTopic(@RequestBody CreateTopicRequest body, HttpServletRequest request)
            throws IOException, InterruptedException {
        requireLeader(request);
        String name = required(body.name(), "name");
        int partitions = required(body.partitions(), "partitions");
        int replicationFactor = required(body.replicationFactor(), "replicationFactor");
        MetadataImage.checkTopicName(name);
        if (partitions < 1 || partitions > maxPartitionsPerTopic) {
            throw new InvalidRequestException(
                    "partitions must be 1..%d, got %d".formatted(maxPartitionsPerTopic, partitions));
        }
        MetadataImage image = image();
        if (image.topics().containsKey(name)) {
            throw new TopicExistsException("topic " + name + " already exists");
        }
        List<List<Integer>> assignments = ReplicaPlacer.place(image, partitions, replicationFactor);
        Map<String, String> configs = body.configs() == null ? Map.of() : body.configs();
        long version = client.submit(new MetadataCommand.CreateTopics(
                List.of(new MetadataCommand.NewTopic(name, UUID.randomUUID(), assignments, configs))));
        TopicJson created = TopicJson.of(imageAt(version).topic(name));
        return ResponseEntity.created(URI.create(request.getRequestURI() + "/" + name))
                .body(new TopicWriteJson(version, created));
    }

    @GetMapping("/topics")
    TopicsJson topics() {
        MetadataImage image = image();
        return new TopicsJson(
                image.version(),
                image.topics().values().stream().map(TopicJson::of).toList());
    }

    @GetMapping("/topics/{topic}")
    TopicJson topic(@PathVariable("topic") String topic) {
        return TopicJson.of(image().topic(topic));
    }

    @DeleteMapping("/topics/{topic}")
    VersionJson deleteTopic(@PathVariable("topic") String topic, HttpServletRequest request) throws IOException {
        requireLeader(request);
        image().topic(topic);
        return new VersionJson(client.submit(new MetadataCommand.DeleteTopic(topic)));
    }

    @PostMapping(path = "/topics/{topic}/configs", consumes = MediaType.APPLICATION_JSON_VALUE)
    TopicWriteJson alterConfigs(
            @PathVariable("topic") String topic, @RequestBody AlterConfigsRequest body, HttpServletRequest request)
            throws IOException, InterruptedException {
        requireLeader(request);
        long version = client.submit(new MetadataCommand.AlterTopicConfigs(
                topic, body.set() == null ? Map.of() : body.set(), body.remove() == null ? List.of() : body.remove()));
        return new TopicWriteJson(version, TopicJson.of(imageAt(version).topic(topic)));
    }

    /**
     * Grows a topic to {@code count} partitions (Kafka's CreatePartitions). The new partitions get
     * the topic's replication factor and are placed by {@link ReplicaPlacer} on the live brokers.
     */
    @PostMapping(path = "/topics/{topic}/partitions", consumes = MediaType.APPLICATION_JSON_VALUE)
    TopicWriteJson createPartitions(
            @PathVariable("topic") String topic, @RequestBody CreatePartitionsRequest body, HttpServletRequest request)
            throws IOException, InterruptedException {
        requireLeader(request);
        int count = required(body.count(), "count");
        MetadataImage image = image();
        Topic t = image.topic(topic);
        int current = t.partitions().size();
        if (count <= current) {
            throw new InvalidPartitionsException(
                    "topic '%s' has %d partitions; count must be more, got %d".formatted(topic, current, count));
        }
        if (count > maxPartitionsPerTopic) {
            throw new InvalidPartitionsException(
                    "topic '%s' may have at most %d partitions, got %d".formatted(topic, maxPartitionsPerTopic, count));
        }
        List<List<Integer>> assignments = ReplicaPlacer.place(image, count - current, t.replicationFactor());
        long version = client.submit(new MetadataCommand.AddPartitions(topic, current, assignments));
        return new TopicWriteJson(version, TopicJson.of(imageAt(version).topic(topic)));
    }

    // ---- SCRAM credentials

    /**
     * Kafka's AlterUserScramCredentials, forwarded by a broker with the keys it derived from each
     * salted password: the per-user checks of {@link ScramAlterations} against the leader's image,
     * then one {@code AlterScramCredentials} command with what they accepted. Answers each user's
     * result and the version that has the changes (the current one when nothing was accepted).
     */
    @PostMapping(path = "/scram-credentials", consumes = MediaType.APPLICATION_JSON_VALUE)
    AlterScramCredentialsJson alterScramCredentials(
            @RequestBody AlterScramCredentialsRequest body, HttpServletRequest request) throws IOException {
        requireLeader(request);
        List<ScramAlterations.Deletion> deletions = new ArrayList<>();
        for (ScramDeletionJson d : body.deletions() == null ? List.<ScramDeletionJson>of() : body.deletions()) {
            deletions.add(new ScramAlterations.Deletion(
                    required(required(d, "deletions[]").user(), "deletions[].user"),
                    required(d.mechanism(), "deletions[].mechanism")));
        }
        List<ScramAlterations.Upsertion> upsertions = new ArrayList<>();
        for (ScramUpsertionJson u : body.upsertions() == null ? List.<ScramUpsertionJson>of() : body.upsertions()) {
            required(u, "upsertions[]");
            int iterations = required(u.iterations(), "upsertions[].iterations");
            Optional<ScramCredentialData> credential = u.storedKey() == null
                            || u.serverKey() == null
                            || u.storedKey().length == 0
                            || u.serverKey().length == 0
                    ? Optional.empty()
                    : Optional.of(new ScramCredentialData(
                            required(u.salt(), "upsertions[].salt"), u.storedKey(), u.serverKey(), iterations));
            upsertions.add(new ScramAlterations.Upsertion(
                    required(u.user(), "upsertions[].user"),
                    required(u.mechanism(), "upsertions[].mechanism"),
                    iterations,
                    credential));
        }
        ScramAlterations.Plan plan = scramAlterations.plan(image().scramCredentials(), deletions, upsertions);
        long version = plan.command().isPresent() ? client.submit(plan.command().get()) : image().version();
        return new AlterScramCredentialsJson(
                version,
                plan.results().stream()
                        .map(r -> new ScramResultJson(r.user(), r.error().name(), r.message()))
                        .toList());
    }

    // ---- ACLs

    /**
     * Kafka's CreateAcls, forwarded by a broker that checked the caller's cluster ALTER: the
     * per-ACL checks of {@link AclChanges} against the leader's image, then one {@code CreateAcls}
     * command with the new ACLs. Answers each creation's result, in request order, and the version
     * that has them (the current one when nothing new was stored).
     */
    @PostMapping(path = "/acls", consumes = MediaType.APPLICATION_JSON_VALUE)
    CreateAclsJson createAcls(@RequestBody CreateAclsRequest body, HttpServletRequest request) throws IOException {
        requireLeader(request);
        List<AclBinding> creations = new ArrayList<>();
        for (AclJson a : required(body.creations(), "creations")) {
            creations.add(acl(required(a, "creations[]"), "creations[]"));
        }
        AclChanges.CreatePlan plan = aclChanges.planCreate(image().acls(), creations);
        long version = plan.command().isPresent() ? client.submit(plan.command().get()) : image().version();
        return new CreateAclsJson(
                version,
                plan.results().stream()
                        .map(r -> new AclResultJson(r.error().name(), r.message()))
                        .toList());
    }

    /**
     * Kafka's DeleteAcls, forwarded by a broker that checked the caller's cluster ALTER: every
     * stored ACL each filter matches ({@link AclChanges}) is deleted by one {@code DeleteAcls}
     * command. Answers each filter's matches, in request order, and the version without them.
     */
    @PostMapping(path = "/acls/delete", consumes = MediaType.APPLICATION_JSON_VALUE)
    DeleteAclsJson deleteAcls(@RequestBody DeleteAclsRequest body, HttpServletRequest request) throws IOException {
        requireLeader(request);
        List<AclBindingFilter> filters = new ArrayList<>();
        for (AclJson f : required(body.filters(), "filters")) {
            AclBinding a = acl(required(f, "filters[]"), "filters[]");
            filters.add(new AclBindingFilter(
                    a.resourceType(),
                    a.resourceName(),
                    a.patternType(),
                    a.principal(),
                    a.host(),
                    a.operation(),
                    a.permission()));
        }
        AclChanges.DeletePlan plan = aclChanges.planDelete(image().acls(), filters);
        long version = plan.command().isPresent() ? client.submit(plan.command().get()) : image().version();
        return new DeleteAclsJson(
                version,
                plan.results().stream()
                        .map(r -> new AclFilterResultJson(
                                r.outcome().error().name(),
                                r.outcome().message(),
                                r.matched().stream().map(AclJson::of).toList()))
                        .toList());
    }

    // ---- client quotas

    /**
     * Kafka's AlterClientQuotas, forwarded by a broker that checked the caller's cluster
     * ALTER_CONFIGS: {@link QuotaChanges}' checks against the leader's image, then one {@code
     * AlterClientQuotas} command (none with {@code validateOnly}). Answers each entry's result, in
     * request order, and the version that has the change (the current one when nothing changed).
     */
    @PostMapping(path = "/client-quotas", consumes = MediaType.APPLICATION_JSON_VALUE)
    AlterClientQuotasJson alterClientQuotas(@RequestBody AlterClientQuotasRequest body, HttpServletRequest request)
            throws IOException {
        requireLeader(request);
        List<QuotaChanges.Entry> entries = new ArrayList<>();
        for (QuotaEntryJson e : required(body.entries(), "entries")) {
            required(e, "entries[]");
            List<QuotaChanges.Part> parts = new ArrayList<>();
            for (QuotaEntityPartJson p : required(e.entity(), "entries[].entity")) {
                parts.add(new QuotaChanges.Part(
                        required(required(p, "entries[].entity[]").entityType(), "entityType"), p.entityName()));
            }
            List<QuotaChanges.Op> ops = new ArrayList<>();
            for (QuotaOpJson o : required(e.ops(), "entries[].ops")) {
                boolean remove =
                        Boolean.TRUE.equals(required(o, "entries[].ops[]").remove());
                ops.add(new QuotaChanges.Op(
                        required(o.key(), "key"), remove ? 0 : required(o.value(), "value"), remove));
            }
            entries.add(new QuotaChanges.Entry(parts, ops));
        }
        QuotaChanges.Plan plan =
                quotaChanges.plan(image().clientQuotas(), entries, Boolean.TRUE.equals(body.validateOnly()));
        long version = plan.command().isPresent() ? client.submit(plan.command().get()) : image().version();
        return new AlterClientQuotasJson(
                version,
                plan.results().stream()
                        .map(r -> new AclResultJson(r.error().name(), r.message()))
                        .toList());
    }

    /** The ACL (or filter) a JSON object names; its codes are required, its strings may be null. */
    private static AclBinding acl(AclJson a, String field) {
        return new AclBinding(
                required(a.resourceType(), field + ".resourceType"),
                a.resourceName(),
                required(a.patternType(), field + ".patternType"),
                a.principal(),
                a.host(),
                required(a.operation(), field + ".operation"),
                required(a.permission(), field + ".permission"));
    }

    @GetMapping("/cluster")
    ClusterJson cluster() {
        MetadataImage image = image();
        Integer leader = node.leaderIndex().orElse(null);
        List<CoordinatorJson> coordinators = new ArrayList<>();
        for (int i = 0; i < route.httpPeers().size(); i++) {
            coordinators.add(new CoordinatorJson(
                    i, route.httpPeers().get(i), raftPeers.get(i), kafkaPeers.get(i), leader != null && leader == i));
        }
        return new ClusterJson(
                image.version(),
                leader,
                coordinators,
                image.brokers().values().stream().map(BrokerJson::of).toList());
    }

    // ---- helpers

    private MetadataImage image() {
        return node.stateMachine().image();
    }

    /** A snapshot installed from the leader replaces the image without a listener call. */
    private void syncHistory() {
        history.observe(image());
    }

    private void requireLeader(HttpServletRequest request) {
        switch (route.decide(node.isLeader(), node.leaderId(), request.getScheme())) {
            case LeaderRoute.Here here -> {}
            case LeaderRoute.Redirect redirect -> {
                String query = request.getQueryString();
                throw new NotLeaderException(
                        redirect.leaderBase().resolve(request.getRequestURI() + (query == null ? "" : "?" + query)));
            }
            case LeaderRoute.Unavailable unavailable ->
                throw new ControlProblemException(ControlProblem.NO_LEADER, unavailable.why());
        }
    }

    /**
     * Brokers register only once the leader has committed the cluster's bootstrap records (the
     * bootstrap SCRAM users, written once by the first leader; Kafka formats them into a new
     * cluster's metadata before any broker starts). A registered broker's image is then at least
     * at that version, so a broker that reports itself ready already knows the bootstrap users:
     * the first client login after start does not race the write. Until then: 503 {@code
     * no-leader} (the leader is not ready yet) with {@code Retry-After}.
     */
    private void requireBootstrapped() {
        if (!image().scramCredentials().bootstrapped()) {
            throw new ControlProblemException(
                    ControlProblem.NO_LEADER,
                    "the leader has not yet committed the cluster's bootstrap records (the bootstrap SCRAM users);"
                            + " brokers register after that");
        }
    }

    private static <T> T required(T value, String field) {
        if (value == null) {
            throw new InvalidRequestException("the field " + field + " is required");
        }
        return value;
    }

    /** This voter's image once it includes {@code version} (the write this request made). */
    private MetadataImage imageAt(long version) throws InterruptedException {
        syncHistory();
        return history.awaitImage(version, properties.maxWait());
    }
}
