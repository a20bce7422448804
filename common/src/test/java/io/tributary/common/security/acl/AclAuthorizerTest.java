package io.tributary.common.security.acl;

import static io.tributary.common.security.acl.AclOperation.ALL;
import static io.tributary.common.security.acl.AclOperation.ALTER_CONFIGS;
import static io.tributary.common.security.acl.AclOperation.DESCRIBE;
import static io.tributary.common.security.acl.AclOperation.DESCRIBE_CONFIGS;
import static io.tributary.common.security.acl.AclOperation.READ;
import static io.tributary.common.security.acl.AclOperation.WRITE;
import static io.tributary.common.security.acl.AclPatternType.LITERAL;
import static io.tributary.common.security.acl.AclPatternType.PREFIXED;
import static io.tributary.common.security.acl.AclPermission.ALLOW;
import static io.tributary.common.security.acl.AclPermission.DENY;
import static io.tributary.common.security.acl.AclResourceType.GROUP;
import static io.tributary.common.security.acl.AclResourceType.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.security.acl.AclAuthorizer.Decision;
import io.tributary.common.security.acl.AclAuthorizer.Reason;
import io.tributary.common.security.acl.AclAuthorizer.Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AclAuthorizerTest {

    private static final KafkaPrincipal ALICE = KafkaPrincipal.user("alice");
    private static final KafkaPrincipal BOB = KafkaPrincipal.user("bob");
    private static final String HOST = "10.0.0.7";
    private static final Settings CLOSED = new Settings(Set.of(), false);
    private static final Settings OPEN = new Settings(Set.of(), true);

    private static AclBinding acl(
            AclResourceType type,
            String name,
            AclPatternType pattern,
            String principal,
            AclOperation op,
            AclPermission p) {
        return new AclBinding(type, name, pattern, principal, AclBinding.ANY_HOST, op, p);
    }

    private static AclBinding allow(String topic, String principal, AclOperation op) {
        return acl(TOPIC, topic, LITERAL, principal, op, ALLOW);
    }

    @Test
    void aResourceNoAclNamesFollowsAllowEveryoneIfNoAclFound() {
        List<AclBinding> acls = List.of(allow("other", "User:alice", READ));
        assertThat(AclAuthorizer.of(acls, CLOSED).authorize(ALICE, HOST, READ, TOPIC, "orders"))
                .isEqualTo(new Decision(false, Reason.NO_ACL_FOUND, null));
        assertThat(AclAuthorizer.of(acls, OPEN).authorize(ALICE, HOST, READ, TOPIC, "orders"))
                .isEqualTo(new Decision(true, Reason.NO_ACL_FOUND, null));
        assertThat(AclAuthorizer.empty(OPEN).allowed(ALICE, HOST, WRITE, GROUP, "g"))
                .isTrue();
    }

    @Test
    void anAclForSomeoneElseClosesTheResourceEvenWhenOpenIfNoAcl() {
        AclAuthorizer authorizer = AclAuthorizer.of(List.of(allow("orders", "User:bob", READ)), OPEN);
        assertThat(authorizer.authorize(ALICE, HOST, READ, TOPIC, "orders"))
                .isEqualTo(new Decision(false, Reason.NO_MATCHING_ALLOW, null));
        assertThat(authorizer.allowed(BOB, HOST, READ, TOPIC, "orders")).isTrue();
        assertThat(authorizer.allowed(BOB, HOST, WRITE, TOPIC, "orders")).isFalse();
    }

    @Test
    void literalWildcardAndPrefixedPatternsMatchAsKafkas() {
        AclAuthorizer authorizer = AclAuthorizer.of(
                List.of(
                        allow("orders", "User:alice", READ),
                        acl(TOPIC, "*", LITERAL, "User:bob", READ, ALLOW),
                        acl(TOPIC, "pay", PREFIXED, "User:alice", WRITE, ALLOW)),
                CLOSED);
        assertThat(authorizer.allowed(ALICE, HOST, READ, TOPIC, "orders")).isTrue();
        assertThat(authorizer.allowed(ALICE, HOST, READ, TOPIC, "orders2")).isFalse();
        assertThat(authorizer.allowed(BOB, HOST, READ, TOPIC, "anything")).isTrue();
        assertThat(authorizer.allowed(ALICE, HOST, WRITE, TOPIC, "payments")).isTrue();
        assertThat(authorizer.allowed(ALICE, HOST, WRITE, TOPIC, "pay")).isTrue();
        assertThat(authorizer.allowed(ALICE, HOST, WRITE, TOPIC, "pa")).isFalse();
        // A literal ACL is not a prefix: "orders" does not cover "ordersX".
        assertThat(authorizer.allowed(ALICE, HOST, READ, TOPIC, "ordersX")).isFalse();
        // Patterns of one type never match another type's resource.
        assertThat(authorizer.allowed(ALICE, HOST, READ, GROUP, "orders")).isFalse();
    }

    @Test
    void denyWinsOverAllowWhereverEachIsFound() {
        AclAuthorizer authorizer = AclAuthorizer.of(
                List.of(allow("payments", "User:alice", ALL), acl(TOPIC, "pay", PREFIXED, "User:*", WRITE, DENY)),
                CLOSED);
        Decision decision = authorizer.authorize(ALICE, HOST, WRITE, TOPIC, "payments");
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.reason()).isEqualTo(Reason.DENY_ACL);
        assertThat(decision.acl().patternType()).isEqualTo(PREFIXED);
        assertThat(authorizer.allowed(ALICE, HOST, READ, TOPIC, "payments")).isTrue();
    }

    @Test
    void allowImpliesDescribeButDenyDeniesOnlyItsOwnOperation() {
        AclAuthorizer authorizer = AclAuthorizer.of(
                List.of(
                        allow("t", "User:alice", WRITE),
                        allow("t", "User:alice", ALTER_CONFIGS),
                        allow("u", "User:alice", DESCRIBE),
                        acl(TOPIC, "u", LITERAL, "User:alice", READ, DENY)),
                CLOSED);
        assertThat(authorizer.allowed(ALICE, HOST, DESCRIBE, TOPIC, "t")).isTrue();
        assertThat(authorizer.allowed(ALICE, HOST, DESCRIBE_CONFIGS, TOPIC, "t"))
                .isTrue();
        assertThat(authorizer.allowed(ALICE, HOST, READ, TOPIC, "t")).isFalse();
        assertThat(authorizer.allowed(ALICE, HOST, DESCRIBE, TOPIC, "u")).isTrue();
        assertThat(authorizer.allowed(ALICE, HOST, READ, TOPIC, "u")).isFalse();
    }

    @Test
    void denyAllDeniesEveryOperation() {
        AclAuthorizer authorizer = AclAuthorizer.of(
                List.of(allow("t", "User:alice", READ), acl(TOPIC, "t", LITERAL, "User:alice", ALL, DENY)), CLOSED);
        assertThat(authorizer.allowed(ALICE, HOST, READ, TOPIC, "t")).isFalse();
        assertThat(authorizer.allowed(ALICE, HOST, DESCRIBE, TOPIC, "t")).isFalse();
    }

    @Test
    void hostsMatchExactlyOrByWildcard() {
        AclAuthorizer authorizer = AclAuthorizer.of(
                List.of(new AclBinding(TOPIC, "t", LITERAL, "User:alice", "10.0.0.8", READ, ALLOW)), CLOSED);
        assertThat(authorizer.allowed(ALICE, "10.0.0.8", READ, TOPIC, "t")).isTrue();
        assertThat(authorizer.allowed(ALICE, HOST, READ, TOPIC, "t")).isFalse();
    }

    @Test
    void superUsersAreAllowedEverythingEvenAgainstADeny() {
        Settings settings = new Settings(Set.of(KafkaPrincipal.user("admin")), false);
        AclAuthorizer authorizer = AclAuthorizer.of(List.of(acl(TOPIC, "*", LITERAL, "User:*", ALL, DENY)), settings);
        assertThat(authorizer.authorize(KafkaPrincipal.user("admin"), HOST, WRITE, TOPIC, "t"))
                .isEqualTo(new Decision(true, Reason.SUPER_USER, null));
        assertThat(authorizer.allowed(ALICE, HOST, WRITE, TOPIC, "t")).isFalse();
    }

    @Test
    void authorizedOperationsSetsOneBitPerAllowedOperationOfTheType() {
        AclAuthorizer authorizer = AclAuthorizer.of(List.of(allow("t", "User:alice", WRITE)), CLOSED);
        int bits = authorizer.authorizedOperations(ALICE, HOST, TOPIC, "t");
        assertThat(bits).isEqualTo((1 << WRITE.code()) | (1 << DESCRIBE.code()));
        AclAuthorizer all = AclAuthorizer.of(List.of(acl(GROUP, "g", LITERAL, "User:alice", ALL, ALLOW)), CLOSED);
        int groupBits = 0;
        for (AclOperation op : GROUP.supportedOperations()) {
            groupBits |= 1 << op.code();
        }
        assertThat(all.authorizedOperations(ALICE, HOST, GROUP, "g")).isEqualTo(groupBits);
    }

    private static boolean aliceMayWriteSomeTopic(List<AclBinding> acls) {
        return AclAuthorizer.of(acls, CLOSED).allowedOnAnyResource(ALICE, HOST, WRITE, TOPIC);
    }

    @Test
    void allowedOnAnyResourceNeedsAnUndominatedAllowOfThatVeryOperation() {
        // KIP-679: an idempotent producer needs WRITE on some topic
        assertThat(aliceMayWriteSomeTopic(List.of(allow("t", "User:alice", WRITE))))
                .isTrue();
        assertThat(aliceMayWriteSomeTopic(List.of(allow("t", "User:bob", WRITE))))
                .isFalse();
        // ALL counts, an operation that would imply it for one resource does not (Kafka's rule)
        assertThat(aliceMayWriteSomeTopic(List.of(allow("t", "User:*", ALL)))).isTrue();
        assertThat(AclAuthorizer.of(List.of(allow("t", "User:alice", WRITE)), CLOSED)
                        .allowedOnAnyResource(ALICE, HOST, DESCRIBE, TOPIC))
                .isFalse();
        // a DENY of the same literal, or of a prefix of the name, dominates; another one does not
        assertThat(aliceMayWriteSomeTopic(
                        List.of(allow("t", "User:alice", WRITE), acl(TOPIC, "t", LITERAL, "User:alice", WRITE, DENY))))
                .isFalse();
        assertThat(aliceMayWriteSomeTopic(List.of(
                        acl(TOPIC, "orders-eu", PREFIXED, "User:alice", WRITE, ALLOW),
                        acl(TOPIC, "orders", PREFIXED, "User:alice", WRITE, DENY))))
                .isFalse();
        assertThat(aliceMayWriteSomeTopic(
                        List.of(allow("t", "User:alice", WRITE), acl(TOPIC, "u", PREFIXED, "User:alice", WRITE, DENY))))
                .isTrue();
        // a DENY on the wildcard denies everything; super users and an open resource pass
        var wildcardDeny = List.of(allow("t", "User:alice", WRITE), acl(TOPIC, "*", LITERAL, "User:*", ALL, DENY));
        assertThat(aliceMayWriteSomeTopic(wildcardDeny)).isFalse();
        assertThat(AclAuthorizer.empty(OPEN).allowedOnAnyResource(ALICE, HOST, WRITE, TOPIC))
                .isTrue();
        assertThat(AclAuthorizer.of(wildcardDeny, new Settings(Set.of(ALICE), false))
                        .allowedOnAnyResource(ALICE, HOST, WRITE, TOPIC))
                .isTrue();
    }

    @Test
    void refusesBindingsKafkaWouldNotStore() {
        assertThatThrownBy(() -> AclAuthorizer.of(
                        List.of(acl(AclResourceType.ANY, "t", LITERAL, "User:a", READ, ALLOW)), CLOSED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Invalid resourceType ANY");
        assertThat(acl(TOPIC, "t", AclPatternType.MATCH, "User:a", READ, ALLOW).validate())
                .contains("Invalid patternType MATCH");
        assertThat(acl(TOPIC, "t", LITERAL, "User:a", AclOperation.ANY, ALLOW).validate())
                .contains("Invalid operation ANY");
        assertThat(acl(TOPIC, "t", LITERAL, "User:a", READ, AclPermission.ANY).validate())
                .contains("Invalid permissionType ANY");
        assertThat(acl(TOPIC, "", LITERAL, "User:a", READ, ALLOW).validate())
                .contains("Resource name should not be empty");
        assertThat(acl(TOPIC, "t", LITERAL, "alice", READ, ALLOW).validate())
                .contains("Could not parse principal from `alice` (no colon is present separating the principal"
                        + " type from the principal name)");
        assertThat(allow("t", "User:a", READ).validate()).isEmpty();
    }

    /**
     * The index against a scan of every ACL with the rules written out plainly, over random ACL sets
     * and requests: names share prefixes on purpose so literal, wildcard and prefixed patterns
     * overlap.
     */
    @Test
    void decidesAsAPlainScanOfEveryAcl() {
        Random random = new Random(20261206L);
        String[] names = {"a", "ab", "abc", "abd", "b", "ba", "*", "x-1"};
        String[] principals = {"User:alice", "User:bob", "User:*"};
        String[] hosts = {"*", "10.0.0.7", "10.0.0.8"};
        AclOperation[] ops = {READ, WRITE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS, ALL, AclOperation.DELETE};
        for (int round = 0; round < 300; round++) {
            List<AclBinding> acls = new ArrayList<>();
            int count = random.nextInt(12);
            for (int i = 0; i < count; i++) {
                String name = names[random.nextInt(names.length)];
                AclPatternType pattern = name.equals("*") || random.nextBoolean() ? LITERAL : PREFIXED;
                acls.add(new AclBinding(
                        random.nextInt(4) == 0 ? GROUP : TOPIC,
                        name,
                        pattern,
                        principals[random.nextInt(principals.length)],
                        hosts[random.nextInt(hosts.length)],
                        ops[random.nextInt(ops.length)],
                        random.nextInt(3) == 0 ? DENY : ALLOW));
            }
            boolean open = random.nextBoolean();
            AclAuthorizer authorizer = AclAuthorizer.of(acls, open ? OPEN : CLOSED);
            for (int q = 0; q < 40; q++) {
                KafkaPrincipal principal = random.nextBoolean() ? ALICE : BOB;
                String host = random.nextBoolean() ? "10.0.0.7" : "10.0.0.8";
                AclOperation op = ops[random.nextInt(ops.length - 2)];
                AclResourceType type = random.nextInt(4) == 0 ? GROUP : TOPIC;
                String name = names[random.nextInt(names.length - 1)] + (random.nextBoolean() ? "" : "z");
                assertThat(authorizer.allowed(principal, host, op, type, name))
                        .as("%s %s %s %s:%s over %s (open %s)", principal, host, op, type, name, acls, open)
                        .isEqualTo(reference(acls, open, principal, host, op, type, name));
            }
        }
    }

    private static boolean reference(
            List<AclBinding> acls,
            boolean open,
            KafkaPrincipal principal,
            String host,
            AclOperation op,
            AclResourceType type,
            String name) {
        boolean named = false;
        boolean allowed = false;
        for (AclBinding acl : acls) {
            boolean patternMatches = acl.resourceType() == type
                    && (acl.patternType() == LITERAL
                            ? acl.resourceName().equals(name)
                                    || acl.resourceName().equals("*")
                            : name.startsWith(acl.resourceName()));
            if (!patternMatches) {
                continue;
            }
            named = true;
            boolean principalMatches = acl.principal().equals(principal.toString())
                    || acl.principal().equals("User:*");
            boolean hostMatches = acl.host().equals("*") || acl.host().equals(host);
            if (!principalMatches || !hostMatches) {
                continue;
            }
            if (acl.permission() == DENY) {
                if (acl.operation() == ALL || acl.operation() == op) {
                    return false;
                }
            } else {
                boolean implied = acl.operation() == ALL
                        || acl.operation() == op
                        || (op == DESCRIBE
                                && Set.of(READ, WRITE, AclOperation.DELETE, AclOperation.ALTER)
                                        .contains(acl.operation()))
                        || (op == DESCRIBE_CONFIGS && acl.operation() == ALTER_CONFIGS);
                allowed |= implied;
            }
        }
        return allowed || (!named && open);
    }
}
