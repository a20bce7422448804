package io.tributary.broker.bench;

import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one authorization decision with 10,000 ACLs (issue "Security on the Kafka side": under
 * 1 µs median): 2,000 topics with an ALLOW for each of 4 of 200 users (8,000 literal ACLs), 1,000
 * PREFIXED ACLs over 500 prefixes of 4 to 12 characters, 900 group ACLs, 100 DENY ACLs and the
 * wildcard {@code *} ACL of a monitoring user. Each call asks whether a random user (from a probe
 * table built once) may READ, WRITE or DESCRIBE a random topic, the way a Produce or Fetch handler
 * asks once per topic. {@code scan} decides the same requests by looking at every ACL in turn (the
 * baseline: what an authorizer without an index pays). Sample mode: the percentiles are per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AclCheckBenchmark {

    static final int TOPICS = 2_000;
    static final int USERS = 200;
    static final int PROBES = 1 << 14;
    private static final String HOST = "10.0.0.7";
    private static final AclOperation[] ASKED = {AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE};

    private AclAuthorizer authorizer;
    private List<AclBinding> acls;
    private final KafkaPrincipal[] principals = new KafkaPrincipal[PROBES];
    private final String[] topics = new String[PROBES];
    private final AclOperation[] operations = new AclOperation[PROBES];
    private int cursor;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(20261206L);
        acls = new ArrayList<>();
        String[] topicNames = new String[TOPICS];
        for (int t = 0; t < TOPICS; t++) {
            topicNames[t] = "team-" + (t % 97) + ".service-" + t + ".events";
            for (int u = 0; u < 4; u++) {
                acls.add(new AclBinding(
                        AclResourceType.TOPIC,
                        topicNames[t],
                        AclPatternType.LITERAL,
                        "User:user-" + random.nextInt(USERS),
                        AclBinding.ANY_HOST,
                        random.nextBoolean() ? AclOperation.READ : AclOperation.WRITE,
                        AclPermission.ALLOW));
            }
        }
        for (int p = 0; p < 1_000; p++) {
            String topic = topicNames[random.nextInt(TOPICS)];
            String prefix = topic.substring(0, Math.min(topic.length(), 4 + random.nextInt(9)));
            acls.add(new AclBinding(
                    AclResourceType.TOPIC,
                    prefix,
                    AclPatternType.PREFIXED,
                    "User:user-" + random.nextInt(USERS),
                    AclBinding.ANY_HOST,
                    AclOperation.READ,
                    AclPermission.ALLOW));
        }
        for (int g = 0; g < 900; g++) {
            acls.add(new AclBinding(
                    AclResourceType.GROUP,
                    "group-" + g,
                    AclPatternType.LITERAL,
                    "User:user-" + random.nextInt(USERS),
                    AclBinding.ANY_HOST,
                    AclOperation.READ,
                    AclPermission.ALLOW));
        }
        for (int d = 0; d < 99; d++) {
            acls.add(new AclBinding(
                    AclResourceType.TOPIC,
                    topicNames[random.nextInt(TOPICS)],
                    AclPatternType.LITERAL,
                    "User:user-" + random.nextInt(USERS),
                    AclBinding.ANY_HOST,
                    AclOperation.WRITE,
                    AclPermission.DENY));
        }
        acls.add(new AclBinding(
                AclResourceType.TOPIC,
                "*",
                AclPatternType.LITERAL,
                "User:monitoring",
                AclBinding.ANY_HOST,
                AclOperation.DESCRIBE,
                AclPermission.ALLOW));
        if (acls.size() != 10_000) {
            throw new IllegalStateException("expected 10,000 ACLs, built " + acls.size());
        }
        authorizer = AclAuthorizer.of(acls, new AclAuthorizer.Settings(Set.of(KafkaPrincipal.user("admin")), false));
        for (int i = 0; i < PROBES; i++) {
            principals[i] = KafkaPrincipal.user("user-" + random.nextInt(USERS));
            // A new String per probe, as a request's topic name is: its hash is not cached yet on first use.
            topics[i] = new String(topicNames[random.nextInt(TOPICS)]);
            operations[i] = ASKED[random.nextInt(ASKED.length)];
        }
    }

    @Benchmark
    public boolean indexed() {
        int i = cursor++ & (PROBES - 1);
        return authorizer.allowed(principals[i], HOST, operations[i], AclResourceType.TOPIC, topics[i]);
    }

    @Benchmark
    public boolean scan() {
        int i = cursor++ & (PROBES - 1);
        return scanDecision(principals[i].toString(), operations[i], topics[i]);
    }

    private boolean scanDecision(String principal, AclOperation operation, String topic) {
        boolean named = false;
        boolean allowed = false;
        for (AclBinding acl : acls) {
            if (acl.resourceType() != AclResourceType.TOPIC) {
                continue;
            }
            boolean matches = acl.patternType() == AclPatternType.LITERAL
                    ? acl.resourceName().equals(topic) || acl.resourceName().equals("*")
                    : topic.startsWith(acl.resourceName());
            if (!matches) {
                continue;
            }
            named = true;
            if (!acl.principal().equals(principal) && !acl.principal().equals("User:*")) {
                continue;
            }
            if (acl.permission() == AclPermission.DENY) {
                if (acl.operation() == operation || acl.operation() == AclOperation.ALL) {
                    return false;
                }
            } else if (acl.operation().allowImplies(operation)) {
                allowed = true;
            }
        }
        return allowed || !named && authorizer.settings().allowEveryoneIfNoAclFound();
    }
}
