package io.tributary.common.protocol;

import static io.tributary.common.protocol.TestHandlers.eventually;
import static io.tributary.common.protocol.TestHandlers.handler;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.testing.KafkaTestConnection;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.LongStream;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Property: whatever bytes a client sends, the listener answers them or closes that connection, and
 * goes on serving new connections; no connection is leaked and no exception escapes a connection's
 * thread. One listener serves every case, so damage would accumulate across seeds.
 *
 * <p>Each case draws from its own seeded generator, so a failure names its seed. To reproduce one:
 * {@code ./mvnw -pl common verify -Dtest=KafkaProtocolServerFuzzTest -Dtributary.fuzz.seed=<seed>}.
 */
class KafkaProtocolServerFuzzTest {

    private static final Logger log = LoggerFactory.getLogger(KafkaProtocolServerFuzzTest.class);
    private static final int CASES = 1000;
    private static final int MAX_FRAME_BYTES = 64 * 1024;

    private static final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private static final ConcurrentLinkedQueue<Throwable> escaped = new ConcurrentLinkedQueue<>();
    private static Thread.UncaughtExceptionHandler previousHandler;
    private static KafkaProtocolServer server;

    @BeforeAll
    static void startListener() {
        previousHandler = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> escaped.add(error));
        var port = new AtomicInteger();
        var config = ProtocolServerConfig.defaults("fuzz", "127.0.0.1", 0).withMaxFrameBytes(MAX_FRAME_BYTES);
        server = TestHandlers.start(
                config,
                registry,
                TestHandlers.metadataOfOneNode(port::get),
                handler(ApiKeys.DESCRIBE_CLUSTER, 0, 2, TestHandlers::describeClusterOk),
                // Not the newest Produce versions: requests without a handler are fuzzed too.
                handler(ApiKeys.PRODUCE, 3, 10, TestHandlers::produceOk));
        port.set(server.port());
    }

    @AfterAll
    static void closeListener() {
        // What the cases reached, to see that they go past the frame length into the codec and handlers.
        registry.getMeters().stream()
                .filter(meter -> meter instanceof Counter)
                .map(meter -> (Counter) meter)
                .filter(counter -> counter.count() > 0)
                .forEach(counter -> log.info(
                        "{} {} {}", counter.getId().getName(), counter.getId().getTags(), counter.count()));
        server.close();
        Thread.setDefaultUncaughtExceptionHandler(previousHandler);
    }

    static LongStream seeds() {
        String pinned = System.getProperty("tributary.fuzz.seed");
        return pinned == null ? LongStream.range(0, CASES) : LongStream.of(Long.parseLong(pinned));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomFramesAreAnsweredOrCloseTheirConnectionAndNeverStopTheListener(long seed) throws Exception {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        String inCase = "seed " + seed + " (pin it with -Dtributary.fuzz.seed=" + seed + ")";

        try (var connection = KafkaTestConnection.open(server.port())) {
            int frames = 1 + random.nextInt(4);
            var bytes = new ByteArrayOutputStream();
            for (int i = 0; i < frames; i++) {
                bytes.write(randomBytes(random));
            }
            connection.write(bytes.toByteArray());
            connection.shutdownOutput();

            // Returns once the listener closed the connection; a listener that hangs fails it with a read timeout.
            connection.readUntilClosed();
        }

        try (var fresh = KafkaTestConnection.open(server.port())) {
            assertThat(Errors.forCode(fresh.apiVersions().data().errorCode()))
                    .as("ApiVersions on a fresh connection after " + inCase)
                    .isEqualTo(Errors.NONE);
        }
        eventually()
                .untilAsserted(() -> assertThat(server.connectionCount())
                        .as("open connections after " + inCase)
                        .isZero());
        assertThat(server.isServing()).as("serving after " + inCase).isTrue();
        // A thread's uncaught exception is reported just after it ends, so one may show up a case late.
        List<Throwable> escapedNow = new ArrayList<>();
        for (Throwable error = escaped.poll(); error != null; error = escaped.poll()) {
            escapedNow.add(error);
        }
        assertThat(escapedNow)
                .as("exceptions that escaped a connection's thread in " + inCase + " or the case before")
                .isEmpty();
    }

    /** One of four shapes, each with its own length prefix: what a confused or hostile client might send. */
    private static byte[] randomBytes(RandomGenerator random) {
        return switch (random.nextInt(4)) {
            case 0 -> randomArray(random, random.nextInt(0, 16));
            case 1 -> frame(randomArray(random, random.nextInt(0, 256)));
            case 2 -> frame(concat(randomHeader(random), randomArray(random, random.nextInt(0, 128))));
            default -> frame(mutate(random, validRequest(random)));
        };
    }

    /** A request header with a real API key, a version near or in its range, and a random body after it. */
    private static byte[] randomHeader(RandomGenerator random) {
        ApiKeys api = ApiKeys.values()[random.nextInt(ApiKeys.values().length)];
        short version = (short) random.nextInt(api.oldestVersion() - 1, api.latestVersion() + 2);
        var header = new RequestHeaderData()
                .setRequestApiKey(api.id)
                .setRequestApiVersion(version)
                .setCorrelationId(random.nextInt())
                .setClientId(random.nextBoolean() ? null : "fuzz-" + random.nextInt(1000));
        short headerVersion = (short) random.nextInt(0, 3);
        var cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(header.size(cache, headerVersion));
        header.write(new ByteBufferAccessor(buffer), cache, headerVersion);
        return buffer.array();
    }

    /** A well-formed request, serialized with its header by kafka-clients. */
    private static byte[] validRequest(RandomGenerator random) {
        List<AbstractRequest> requests = List.of(
                new ApiVersionsRequest.Builder().build(),
                MetadataRequest.Builder.allTopics().build(ApiKeys.METADATA.latestVersion()),
                TestRequests.describeCluster(random.nextInt(0, 3)),
                TestRequests.produce(
                        random.nextInt(-1, 2), (short) random.nextInt(3, ApiKeys.PRODUCE.latestVersion() + 1)),
                TestRequests.latestFetch(),
                FetchRequest.Builder.forConsumer(ApiKeys.FETCH.latestVersion(), 0, 1, Map.of())
                        .build((short) 4));
        AbstractRequest request = requests.get(random.nextInt(requests.size()));
        ByteBuffer bytes = request.serializeWithHeader(
                new RequestHeader(request.apiKey(), request.version(), "fuzz", random.nextInt()));
        byte[] array = new byte[bytes.remaining()];
        bytes.get(array);
        return array;
    }

    /** Flips some bytes, or cuts the tail off, or appends junk; or leaves the request as it is. */
    private static byte[] mutate(RandomGenerator random, byte[] request) {
        byte[] mutated = request.clone();
        switch (random.nextInt(4)) {
            case 0 -> {
                int flips = random.nextInt(1, 4);
                for (int i = 0; i < flips; i++) {
                    mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
                }
            }
            case 1 -> mutated = Arrays.copyOf(mutated, random.nextInt(mutated.length));
            case 2 -> mutated = concat(mutated, randomArray(random, random.nextInt(1, 32)));
            default -> {}
        }
        return mutated;
    }

    private static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length)
                .putInt(payload.length)
                .put(payload)
                .array();
    }

    private static byte[] randomArray(RandomGenerator random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}
