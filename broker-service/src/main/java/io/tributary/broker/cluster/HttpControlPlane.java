package io.tributary.broker.cluster;

import io.tributary.broker.cluster.ControlPlaneException.Kind;
import io.tributary.broker.cluster.ControlPlaneJson.AllocateProducerIdsRequest;
import io.tributary.broker.cluster.ControlPlaneJson.AlterConfigsRequest;
import io.tributary.broker.cluster.ControlPlaneJson.AlterPartitionRequest;
import io.tributary.broker.cluster.ControlPlaneJson.AlterScramCredentialsJson;
import io.tributary.broker.cluster.ControlPlaneJson.AlterScramCredentialsRequest;
import io.tributary.broker.cluster.ControlPlaneJson.ClusterJson;
import io.tributary.broker.cluster.ControlPlaneJson.CreatePartitionsRequest;
import io.tributary.broker.cluster.ControlPlaneJson.CreateTopicRequest;
import io.tributary.broker.cluster.ControlPlaneJson.EndpointJson;
import io.tributary.broker.cluster.ControlPlaneJson.HeartbeatRequest;
import io.tributary.broker.cluster.ControlPlaneJson.MetadataJson;
import io.tributary.broker.cluster.ControlPlaneJson.PartitionWriteJson;
import io.tributary.broker.cluster.ControlPlaneJson.ProblemJson;
import io.tributary.broker.cluster.ControlPlaneJson.ProducerIdsJson;
import io.tributary.broker.cluster.ControlPlaneJson.RegisterBrokerRequest;
import io.tributary.broker.cluster.ControlPlaneJson.ScramDeletionJson;
import io.tributary.broker.cluster.ControlPlaneJson.ScramUpsertionJson;
import io.tributary.broker.cluster.ControlPlaneJson.TopicWriteJson;
import io.tributary.broker.cluster.ControlPlaneJson.VersionJson;
import io.tributary.common.protocol.RequestWaits;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import io.tributary.common.security.internal.BrokerKey;
import io.tributary.common.security.internal.ControlPlaneSignature;
import io.tributary.common.security.tls.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The coordinators' control plane over HTTP/JSON ({@code docs/control-plane.md}), with the JDK's
 * {@link HttpClient} (HTTP/1.1) and Jackson.
 *
 * <p><b>Finding the leader.</b> The client knows every coordinator's {@code host:port} and sends
 * each call first to the one that answered last (after a redirect: the leader). A follower answers
 * a write with {@code 307} to the leader's same URL: the client follows it itself (at most {@link
 * Config#maxRedirects()} hops per attempt), keeping the method and the body, and remembers the
 * leader. When a coordinator cannot be reached (connection refused, connect timeout) or answers
 * {@code 503 no-leader} (an election), the call moves on to the next coordinator, pausing {@link
 * Config#retryBackoff()} (or the answer's {@code Retry-After}, when longer) between rounds, until
 * {@link Config#maxAttempts()} attempts or the call's deadline ({@link Config#requestTimeout()};
 * for the long poll, its wait plus that) is reached; then the call fails {@link Kind#UNAVAILABLE}.
 *
 * <p>A coordinator whose request failed after connecting (a timeout, a reset) stops being the
 * preferred one, so that the next call (the next heartbeat) starts with the next coordinator.
 *
 * <p><b>What is retried.</b> Only what certainly did not change anything: a request whose
 * connection was never made, a {@code 503 no-leader}, and any read (GET). A write that may have
 * reached the leader (the connection broke or timed out after sending, or {@code 503
 * not-committed}) is not repeated here: it fails {@link Kind#NOT_COMMITTED} and the caller decides
 * (Kafka clients retry their admin requests).
 *
 * <p><b>Errors.</b> Problem+json answers map by their {@code type} slug to {@link Kind}: {@code
 * topic-exists}, {@code unknown-topic}, {@code unknown-broker}, {@code invalid-config}, {@code
 * invalid-replication-factor}, {@code invalid-partitions}, {@code stale-epoch}, {@code no-leader}
 * ({@link Kind#UNAVAILABLE}), {@code not-committed}; any other 4xx is {@link Kind#INVALID_REQUEST}
 * and any other 5xx (a coordinator defect) or an answer that is not the expected JSON is {@link
 * Kind#UNAVAILABLE}.
 *
 * <p><b>Bounds.</b> An answer larger than {@link Config#maxResponseSize()} bytes is not read (its
 * connection is dropped) and fails {@link Kind#UNAVAILABLE}. Topic names in paths are
 * percent-encoded byte by byte (UTF-8), keeping only RFC 3986 unreserved characters.
 *
 * <p>Thread-safety: safe for concurrent calls; the remembered leader is a volatile field.
 */
public final class HttpControlPlane implements ControlPlane, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HttpControlPlane.class);

    /** The prefix of every problem type the coordinators send; the slug follows it. */
    static final String PROBLEM_TYPE_PREFIX = "urn:tributary:problem:coordinator:";

    private static final String BASE_PATH = "/internal/v1";
    private static final String JSON = "application/json";

    /**
     * The client's bounds.
     *
     * @param coordinators every coordinator's control-plane address, {@code host:port}
     * @param connectTimeout how long making one connection may take
     * @param requestTimeout how long one call may take in all, retries included (the long poll
     *     adds its wait to it)
     * @param retryBackoff the pause before trying the coordinators again after a round failed; a
     *     longer {@code Retry-After} wins, up to the call's deadline
     * @param maxAttempts requests one call may send in all (redirects not counted)
     * @param maxRedirects 307 hops one request may follow
     * @param maxResponseSize the largest answer read, in bytes (a full metadata image of a large
     *     cluster is the biggest)
     * @param key this broker's key: every request is signed with it ({@link ControlPlaneSignature},
     *     again on each redirect hop); null sends none (the coordinators' control plane is open)
     * @param tls the TLS context of {@code https://} coordinators (which authorities it trusts);
     *     null: the JDK's default one
     */
    public record Config(
            List<String> coordinators,
            Duration connectTimeout,
            Duration requestTimeout,
            Duration retryBackoff,
            int maxAttempts,
            int maxRedirects,
            long maxResponseSize,
            BrokerKey key,
            SSLContext tls) {

        public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
        public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
        public static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofMillis(200);
        public static final int DEFAULT_MAX_ATTEMPTS = 20;
        public static final int DEFAULT_MAX_REDIRECTS = 3;
        /** 64 MiB: about 500,000 partitions in a full image at ~120 bytes of JSON each. */
        public static final long DEFAULT_MAX_RESPONSE_SIZE = 64L * 1024 * 1024;

        public Config {
            coordinators = List.copyOf(coordinators);
            if (coordinators.isEmpty()) {
                throw new IllegalArgumentException("at least one coordinator address is needed");
            }
            for (String address : coordinators) {
                baseUri(address);
            }
            requirePositive(connectTimeout, "connectTimeout");
            requirePositive(requestTimeout, "requestTimeout");
            Objects.requireNonNull(retryBackoff, "retryBackoff");
            if (retryBackoff.isNegative()) {
                throw new IllegalArgumentException("retryBackoff must not be negative: " + retryBackoff);
            }
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be 1 or more: " + maxAttempts);
            }
            if (maxRedirects < 0) {
                throw new IllegalArgumentException("maxRedirects must not be negative: " + maxRedirects);
            }
            if (maxResponseSize < 1024) {
                throw new IllegalArgumentException("maxResponseSize must be 1024 bytes or more: " + maxResponseSize);
            }
        }

        /** The defaults for these coordinators. */
        public static Config of(List<String> coordinators) {
            return new Config(
                    coordinators,
                    DEFAULT_CONNECT_TIMEOUT,
                    DEFAULT_REQUEST_TIMEOUT,
                    DEFAULT_RETRY_BACKOFF,
                    DEFAULT_MAX_ATTEMPTS,
                    DEFAULT_MAX_REDIRECTS,
                    DEFAULT_MAX_RESPONSE_SIZE,
                    null,
                    null);
        }

        private static void requirePositive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + d);
            }
        }
    }

    /** How the client pauses between rounds of attempts; tests record the pauses instead. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;

        /** Parks the calling thread (a virtual thread unmounts). */
        Sleeper PARK = duration -> {
            if (duration.isPositive()) {
                Thread.sleep(duration);
            }
        };
    }

    private final Config config;
    private final List<URI> coordinators;
    private final HttpClient http;
    private final JsonMapper json;
    private final InstantSource clock;
    private final Sleeper sleeper;
    private final HttpAclCalls acls = new HttpAclCalls(this::call);
    /** The coordinator that answered last (the leader after a redirect); tried first. */
    private volatile URI preferred;

    public HttpControlPlane(Config config) {
        this(config, InstantSource.system(), Sleeper.PARK);
    }

    public HttpControlPlane(Config config, InstantSource clock, Sleeper sleeper) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.coordinators =
                config.coordinators().stream().map(HttpControlPlane::baseUri).toList();
        this.preferred = coordinators.getFirst();
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(config.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER);
        if (config.tls() != null) {
            builder.sslContext(config.tls());
        }
        this.http = builder.sslParameters(new SSLParameters(null, TlsSettings.DEFAULT_PROTOCOLS.toArray(String[]::new)))
                .build();
        this.json = JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
    }

    /** The coordinator calls go to first: the last one that answered. */
    public URI preferredCoordinator() {
        return preferred;
    }

    // ---- ControlPlane

    @Override
    public long register(int brokerId, Uuid incarnationId, String rack, List<BrokerEndpoint> endpoints) {
        var body = new RegisterBrokerRequest(
                brokerId,
                ControlPlaneJson.uuid(incarnationId),
                endpoints.stream().map(EndpointJson::of).toList(),
                rack == null || rack.isBlank() ? null : rack);
        return version(call("POST", "/brokers", body, Duration.ZERO, VersionJson.class));
    }

    @Override
    public long heartbeat(int brokerId, Uuid incarnationId) {
        var body = new HeartbeatRequest(ControlPlaneJson.uuid(incarnationId));
        return version(call("POST", "/brokers/" + brokerId + "/heartbeat", body, Duration.ZERO, VersionJson.class));
    }

    @Override
    public long shutdown(int brokerId, Uuid incarnationId, Duration timeout) {
        var body = new HeartbeatRequest(ControlPlaneJson.uuid(incarnationId));
        Duration bound = timeout.compareTo(config.requestTimeout()) < 0 ? timeout : config.requestTimeout();
        return version(
                call("POST", "/brokers/" + brokerId + "/shutdown", body, Duration.ZERO, VersionJson.class, bound));
    }

    @Override
    public MetadataDelta fetchMetadata(OptionalLong after, Duration maxWait) {
        long waitMs = Math.max(0, maxWait.toMillis());
        String path = after.isPresent()
                ? "/metadata?after=" + after.getAsLong() + "&max_wait_ms=" + waitMs
                : "/metadata?max_wait_ms=0";
        Duration wait = after.isPresent() ? Duration.ofMillis(waitMs) : Duration.ZERO;
        MetadataJson answer = call("GET", path, null, wait, MetadataJson.class);
        return convert(() -> {
            version(answer.version());
            return answer.toDelta();
        });
    }

    @Override
    public TopicWrite createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        var body = new CreateTopicRequest(name, partitions, replicationFactor, Map.copyOf(configs));
        return topicWrite(call("POST", "/topics", body, Duration.ZERO, TopicWriteJson.class));
    }

    @Override
    public long deleteTopic(String name) {
        return version(call("DELETE", topicPath(name), null, Duration.ZERO, VersionJson.class));
    }

    @Override
    public TopicWrite alterConfigs(String topic, Map<String, String> set, Collection<String> remove) {
        var body = new AlterConfigsRequest(Map.copyOf(set), List.copyOf(remove));
        return topicWrite(call("POST", topicPath(topic) + "/configs", body, Duration.ZERO, TopicWriteJson.class));
    }

    @Override
    public TopicWrite createPartitions(String topic, int totalCount) {
        var body = new CreatePartitionsRequest(totalCount);
        return topicWrite(call("POST", topicPath(topic) + "/partitions", body, Duration.ZERO, TopicWriteJson.class));
    }

    @Override
    public ProducerIdBlock allocateProducerIds(int brokerId, int count) {
        var body = new AllocateProducerIdsRequest(brokerId, count);
        ProducerIdsJson answer = call("POST", "/producer-ids", body, Duration.ZERO, ProducerIdsJson.class);
        return convert(() -> new ProducerIdBlock(
                version(answer.version()),
                Objects.requireNonNull(answer.firstProducerId(), "firstProducerId"),
                Objects.requireNonNull(answer.count(), "count")));
    }

    @Override
    public ScramWrite alterScramCredentials(List<ScramDeletion> deletions, List<ScramUpsertion> upsertions) {
        var body = new AlterScramCredentialsRequest(
                deletions.stream()
                        .map(d -> new ScramDeletionJson(d.user(), d.mechanism()))
                        .toList(),
                upsertions.stream()
                        .map(u -> new ScramUpsertionJson(
                                u.user(), u.mechanism(), u.iterations(), u.salt(), u.storedKey(), u.serverKey()))
                        .toList());
        AlterScramCredentialsJson answer =
                call("POST", "/scram-credentials", body, Duration.ZERO, AlterScramCredentialsJson.class);
        return convert(() -> new ScramWrite(
                version(answer.version()),
                answer.results().stream()
                        .map(r -> new ScramResult(
                                Objects.requireNonNull(r.user(), "user"),
                                Objects.requireNonNull(r.error(), "error"),
                                r.message()))
                        .toList()));
    }

    @Override
    public AclCreation createAcls(List<AclBinding> creations) {
        return acls.create(creations);
    }

    @Override
    public AclDeletion deleteAcls(List<AclBindingFilter> filters) {
        return acls.delete(filters);
    }

    @Override
    public QuotaAlteration alterClientQuotas(QuotaRequest request) {
        return acls.alterClientQuotas(request);
    }

    @Override
    public PartitionWrite alterPartition(
            String topic, int partition, int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
        var body = new AlterPartitionRequest(leaderId, leaderEpoch, partitionEpoch, List.copyOf(isr));
        PartitionWriteJson answer = call(
                "POST",
                topicPath(topic) + "/partitions/" + partition + "/alter",
                body,
                Duration.ZERO,
                PartitionWriteJson.class);
        return convert(() -> new PartitionWrite(
                version(answer.version()),
                Objects.requireNonNull(answer.topic(), "topic"),
                Objects.requireNonNull(answer.partition(), "partition").toPartition()));
    }

    /**
     * {@inheritDoc}
     *
     * <p>{@code GET /internal/v1/cluster} (any voter answers from its view of the leader); the
     * leader's {@code kafkaAddress} is parsed as {@code host:port}. A coordinator without that field
     * (from before it existed) or with an unparsable one counts as no coordinator.
     */
    @Override
    public Optional<GroupCoordinator> groupCoordinator() {
        ClusterJson cluster = call("GET", "/cluster", null, Duration.ZERO, ClusterJson.class);
        if (cluster.leaderId() == null || cluster.coordinators() == null) {
            return Optional.empty();
        }
        for (ControlPlaneJson.CoordinatorJson c : cluster.coordinators()) {
            if (c != null && cluster.leaderId().equals(c.id()) && c.kafkaAddress() != null) {
                String address = c.kafkaAddress();
                int colon = address.lastIndexOf(':');
                try {
                    int port = Integer.parseInt(address.substring(colon + 1));
                    if (colon > 0 && port > 0 && port <= 65535) {
                        return Optional.of(new GroupCoordinator(c.id(), address.substring(0, colon), port));
                    }
                } catch (NumberFormatException e) {
                    // below
                }
                log.warn("coordinator {} advertises an unusable Kafka address '{}'", c.id(), address);
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        // shutdownNow, not close: close waits for requests in flight, and a long poll may be one.
        http.shutdownNow();
    }

    // ---- the request loop

    /**
     * Sends one call: to the preferred coordinator first, then to the others in order, following
     * redirects, until an answer that is not "try elsewhere", the attempts run out or the deadline
     * passes.
     */
    private <T> T call(String method, String path, Object body, Duration longPollWait, Class<T> answerType) {
        return call(method, path, body, longPollWait, answerType, config.requestTimeout());
    }

    /** {@link #call} within {@code timeout} (plus the long poll's wait) instead of the request timeout. */
    private <T> T call(
            String method, String path, Object body, Duration longPollWait, Class<T> answerType, Duration timeout) {
        byte[] bodyBytes = body == null ? null : json.writeValueAsBytes(body);
        boolean write = !method.equals("GET");
        Instant deadline = clock.instant().plus(timeout).plus(longPollWait);
        List<URI> order = tryOrder();
        ControlPlaneException last = null;
        int attempts = 0;
        while (true) {
            Duration pause = config.retryBackoff();
            for (URI base : order) {
                if (attempts >= config.maxAttempts() || !clock.instant().isBefore(deadline)) {
                    throw exhausted(method, path, attempts, last);
                }
                attempts++;
                Attempt attempt = attempt(base, method, path, bodyBytes, write, deadline);
                switch (attempt) {
                    case Attempt.Answered answered -> {
                        preferred = answered.coordinator();
                        return parse(answered.body(), answerType, method, path);
                    }
                    case Attempt.Failed failed -> throw failed.error();
                    case Attempt.TryNext next -> {
                        last = next.error();
                        if (next.retryAfter().compareTo(pause) > 0) {
                            pause = next.retryAfter();
                        }
                        log.debug(
                                "{} {} at {}: {}; trying the next coordinator", method, path, base, last.getMessage());
                    }
                }
            }
            Duration remaining = Duration.between(clock.instant(), deadline);
            if (attempts >= config.maxAttempts() || !remaining.isPositive()) {
                throw exhausted(method, path, attempts, last);
            }
            try {
                sleeper.sleep(pause.compareTo(remaining) < 0 ? pause : remaining);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ControlPlaneException(Kind.UNAVAILABLE, method + " " + path + " was interrupted", e);
            }
        }
    }

    /** The preferred coordinator, then the configured ones in order (each once). */
    private List<URI> tryOrder() {
        URI first = preferred;
        List<URI> order = new ArrayList<>(coordinators.size() + 1);
        order.add(first);
        for (URI c : coordinators) {
            if (!c.equals(first)) {
                order.add(c);
            }
        }
        return order;
    }

    private ControlPlaneException exhausted(String method, String path, int attempts, ControlPlaneException last) {
        String why = last == null ? "no attempt was made in time" : last.getMessage();
        return new ControlPlaneException(
                Kind.UNAVAILABLE,
                "%s %s failed after %d attempt(s) on coordinators %s: %s"
                        .formatted(method, path, attempts, config.coordinators(), why),
                last);
    }

    /** One request to one coordinator, redirects followed. */
    private sealed interface Attempt {
        /** A 2xx answer from {@code coordinator} (which is where it was sent last). */
        record Answered(URI coordinator, byte[] body) implements Attempt {}

        /** A final failure: thrown to the caller. */
        record Failed(ControlPlaneException error) implements Attempt {}

        /** Nothing changed there: try the next coordinator (after {@code retryAfter} at the end of a round). */
        record TryNext(ControlPlaneException error, Duration retryAfter) implements Attempt {}
    }

    private Attempt attempt(URI base, String method, String path, byte[] body, boolean write, Instant deadline) {
        URI target = base.resolve(BASE_PATH + path);
        for (int hop = 0; ; hop++) {
            Duration remaining = Duration.between(clock.instant(), deadline);
            if (!remaining.isPositive()) {
                return new Attempt.TryNext(
                        new ControlPlaneException(Kind.UNAVAILABLE, "the call's deadline passed"), Duration.ZERO);
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(target)
                    .timeout(remaining)
                    .header("Accept", JSON + ", application/problem+json");
            if (config.key() != null) {
                // Signed again on each hop: the same call, at this moment.
                String pathAndQuery = target.getRawQuery() == null
                        ? target.getRawPath()
                        : target.getRawPath() + "?" + target.getRawQuery();
                request.header(
                        "Authorization",
                        ControlPlaneSignature.sign(config.key(), method, pathAndQuery, body, clock.millis()));
            }
            if (body != null) {
                request.header("Content-Type", JSON).method(method, HttpRequest.BodyPublishers.ofByteArray(body));
            } else {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            }
            HttpResponse<InputStream> response;
            try {
                long sentAt = System.nanoTime();
                try {
                    response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
                } finally {
                    RequestWaits.waited(System.nanoTime() - sentAt);
                }
            } catch (ConnectException | HttpConnectTimeoutException e) {
                return new Attempt.TryNext(
                        new ControlPlaneException(
                                Kind.UNAVAILABLE, "cannot connect to " + authority(target) + ": " + describe(e), e),
                        Duration.ZERO);
            } catch (IOException e) {
                String why = "%s %s to %s failed: %s".formatted(method, path, authority(target), describe(e));
                // A coordinator that accepts connections but does not answer (overloaded, half dead)
                // must not stay first in line: the next call starts with the next one.
                moveOnFrom(baseOf(target));
                if (write) {
                    return new Attempt.Failed(new ControlPlaneException(
                            Kind.NOT_COMMITTED, why + "; the write may or may not have been applied", e));
                }
                return new Attempt.TryNext(new ControlPlaneException(Kind.UNAVAILABLE, why, e), Duration.ZERO);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Attempt.Failed(
                        new ControlPlaneException(Kind.UNAVAILABLE, method + " " + path + " was interrupted", e));
            }
            int status = response.statusCode();
            if (status == 307 || status == 308) {
                discard(response);
                if (hop >= config.maxRedirects()) {
                    return new Attempt.TryNext(
                            new ControlPlaneException(
                                    Kind.UNAVAILABLE,
                                    "more than %d redirects from %s".formatted(config.maxRedirects(), base)),
                            Duration.ZERO);
                }
                URI location = redirectTarget(target, response);
                if (location == null) {
                    return new Attempt.TryNext(
                            new ControlPlaneException(
                                    Kind.UNAVAILABLE, authority(target) + " redirected without a usable Location"),
                            Duration.ZERO);
                }
                log.debug("{} {}: {} redirects to {}", method, path, authority(target), authority(location));
                target = location;
                continue;
            }
            byte[] bytes;
            try {
                bytes = readBounded(response);
            } catch (IOException e) {
                String why = "reading the answer of %s to %s %s failed: %s"
                        .formatted(authority(target), method, path, describe(e));
                if (write && status / 100 == 2) {
                    return new Attempt.Failed(new ControlPlaneException(
                            Kind.NOT_COMMITTED, why + "; the write may or may not have been applied", e));
                }
                return new Attempt.TryNext(new ControlPlaneException(Kind.UNAVAILABLE, why, e), Duration.ZERO);
            }
            URI answeredBy = baseOf(target);
            if (status / 100 == 2) {
                return new Attempt.Answered(answeredBy, bytes);
            }
            ControlPlaneException error = problem(status, bytes, method, path, authority(target));
            if (status == 503 && error.kind() == Kind.UNAVAILABLE) {
                return new Attempt.TryNext(error, retryAfter(response));
            }
            if (error.kind() == Kind.UNAVAILABLE && !write) {
                return new Attempt.TryNext(error, Duration.ZERO);
            }
            // The coordinator answered: it is reachable, keep asking it first.
            preferred = answeredBy;
            return new Attempt.Failed(error);
        }
    }

    /** If {@code failed} is the preferred coordinator, prefers the next configured one instead. */
    private void moveOnFrom(URI failed) {
        if (!failed.equals(preferred)) {
            return;
        }
        int index = coordinators.indexOf(failed);
        preferred = coordinators.get((index + 1) % coordinators.size());
    }

    /** The answer's body, at most {@link Config#maxResponseSize()} bytes; more fails (and drops the connection). */
    private byte[] readBounded(HttpResponse<InputStream> response) throws IOException {
        long max = config.maxResponseSize();
        OptionalLong declared = response.headers().firstValueAsLong("Content-Length");
        try (InputStream in = response.body()) {
            if (declared.isPresent() && declared.getAsLong() > max) {
                throw new IOException(
                        "the answer declares %d bytes; at most %d are read".formatted(declared.getAsLong(), max));
            }
            byte[] bytes = in.readNBytes(Math.toIntExact(Math.min(max + 1, Integer.MAX_VALUE)));
            if (bytes.length > max) {
                throw new IOException("the answer is larger than %d bytes".formatted(max));
            }
            return bytes;
        }
    }

    private static void discard(HttpResponse<InputStream> response) {
        try (InputStream in = response.body()) {
            in.readNBytes(8192);
        } catch (IOException e) {
            // the connection is dropped; nothing else to do
        }
    }

    private static URI redirectTarget(URI from, HttpResponse<?> response) {
        String location = response.headers().firstValue("Location").orElse(null);
        if (location == null || location.isBlank()) {
            return null;
        }
        try {
            URI resolved = from.resolve(new URI(location));
            boolean sameOrUpgrade = "https".equalsIgnoreCase(resolved.getScheme())
                    || ("http".equalsIgnoreCase(resolved.getScheme()) && "http".equalsIgnoreCase(from.getScheme()));
            // Never from HTTPS down to HTTP: the signed call and the answer would travel in clear.
            if (!sameOrUpgrade || resolved.getHost() == null) {
                return null;
            }
            return resolved;
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    /** {@code Retry-After} in seconds (the coordinators send seconds), or zero. */
    private static Duration retryAfter(HttpResponse<?> response) {
        return response.headers()
                .firstValue("Retry-After")
                .map(String::trim)
                .filter(v -> v.matches("\\d{1,9}"))
                .map(v -> Duration.ofSeconds(Long.parseLong(v)))
                .orElse(Duration.ZERO);
    }

    private ControlPlaneException problem(int status, byte[] body, String method, String path, String coordinator) {
        String slug = null;
        String detail = null;
        try {
            ProblemJson problem = json.readValue(body, ProblemJson.class);
            if (problem != null && problem.type() != null && problem.type().startsWith(PROBLEM_TYPE_PREFIX)) {
                slug = problem.type().substring(PROBLEM_TYPE_PREFIX.length());
            }
            detail = problem == null ? null : problem.detail();
        } catch (JacksonException e) {
            // not problem+json: the status decides
        }
        Kind kind = kindOf(status, slug);
        String message = "%s %s: %s answered %d%s%s"
                .formatted(
                        method,
                        path,
                        coordinator,
                        status,
                        slug == null ? "" : " " + slug,
                        detail == null ? "" : ": " + detail);
        return detail == null || detail.isBlank()
                ? new ControlPlaneException(kind, message)
                : new ControlPlaneException(kind, message, detail);
    }

    /** The kind for a problem {@code slug} (null when the body had none) and HTTP status. */
    static Kind kindOf(int status, String slug) {
        if (slug != null) {
            switch (slug) {
                case "topic-exists" -> {
                    return Kind.TOPIC_EXISTS;
                }
                case "unknown-topic" -> {
                    return Kind.UNKNOWN_TOPIC;
                }
                case "unknown-broker" -> {
                    return Kind.UNKNOWN_BROKER;
                }
                case "invalid-config" -> {
                    return Kind.INVALID_CONFIG;
                }
                case "invalid-replication-factor" -> {
                    return Kind.INVALID_REPLICATION_FACTOR;
                }
                case "invalid-partitions" -> {
                    return Kind.INVALID_PARTITIONS;
                }
                case "stale-epoch" -> {
                    return Kind.STALE_EPOCH;
                }
                case "no-leader" -> {
                    return Kind.UNAVAILABLE;
                }
                case "not-committed" -> {
                    return Kind.NOT_COMMITTED;
                }
                default -> {
                    // malformed-json, invalid-request, invalid-parameter, not-found... by status below
                }
            }
        }
        return status >= 400 && status < 500 ? Kind.INVALID_REQUEST : Kind.UNAVAILABLE;
    }

    private <T> T parse(byte[] body, Class<T> type, String method, String path) {
        try {
            T value = json.readValue(body, type);
            if (value == null) {
                throw new ControlPlaneException(Kind.UNAVAILABLE, method + " " + path + ": the answer is empty");
            }
            return value;
        } catch (JacksonException e) {
            throw new ControlPlaneException(
                    Kind.UNAVAILABLE,
                    method + " " + path + ": the answer is not the expected JSON: " + e.getOriginalMessage(),
                    e);
        }
    }

    private static TopicWrite topicWrite(TopicWriteJson answer) {
        return convert(() -> new TopicWrite(
                version(answer.version()),
                Objects.requireNonNull(answer.topic(), "topic").toTopic()));
    }

    private static long version(VersionJson answer) {
        return version(answer.version());
    }

    static long version(Long version) {
        if (version == null || version < 0) {
            throw new ControlPlaneException(Kind.UNAVAILABLE, "the answer has no valid version: " + version);
        }
        return version;
    }

    /** Builds a value from a parsed answer; a missing or invalid field is a coordinator defect. */
    static <T> T convert(java.util.function.Supplier<T> conversion) {
        try {
            return conversion.get();
        } catch (NullPointerException | IllegalArgumentException e) {
            throw new ControlPlaneException(
                    Kind.UNAVAILABLE, "the coordinator's answer is incomplete: " + e.getMessage(), e);
        }
    }

    // ---- addresses

    /**
     * A coordinator's base URI from its address: {@code host:port} (HTTP), {@code http://host:port}
     * or {@code https://host:port}.
     */
    static URI baseUri(String address) {
        Objects.requireNonNull(address, "coordinator address");
        String trimmed = address.trim();
        String problem =
                "a coordinator address must be host:port, http://host:port or https://host:port, got '" + address + "'";
        try {
            URI uri = new URI(trimmed.contains("://") ? trimmed : "http://" + trimmed);
            if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                    || uri.getHost() == null
                    || uri.getPort() < 1
                    || uri.getPort() > 65535
                    || !(uri.getPath() == null || uri.getPath().isEmpty())
                    || uri.getQuery() != null
                    || uri.getUserInfo() != null) {
                throw new IllegalArgumentException(problem);
            }
            return new URI(
                    uri.getScheme().toLowerCase(java.util.Locale.ROOT),
                    null,
                    uri.getHost(),
                    uri.getPort(),
                    null,
                    null,
                    null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(problem, e);
        }
    }

    private static URI baseOf(URI target) {
        try {
            return new URI(target.getScheme(), null, target.getHost(), target.getPort(), null, null, null);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot rebuild the base of " + target, e);
        }
    }

    private static String authority(URI uri) {
        return uri.getHost() + ":" + uri.getPort();
    }

    private static String describe(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /**
     * {@code /topics/<name>}: the name percent-encoded as UTF-8, every byte but RFC 3986's
     * unreserved characters ({@code A-Z a-z 0-9 - . _ ~}). The names {@code .} and {@code ..}
     * (which Kafka forbids) would be path segments of their own and are refused as unknown.
     */
    static String topicPath(String topic) {
        Objects.requireNonNull(topic, "topic");
        if (topic.isEmpty() || topic.equals(".") || topic.equals("..")) {
            throw new ControlPlaneException(Kind.UNKNOWN_TOPIC, "no topic can be named '" + topic + "'");
        }
        return "/topics/" + encodeSegment(topic);
    }

    static String encodeSegment(String segment) {
        StringBuilder out = new StringBuilder(segment.length());
        for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(String.format(Locale.ROOT, "%02X", c));
            }
        }
        return out.toString();
    }
}
