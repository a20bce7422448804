package io.tributary.common.security.acl;

import static io.tributary.common.security.acl.AclOperation.READ;
import static io.tributary.common.security.acl.AclOperation.WRITE;
import static io.tributary.common.security.acl.AclPatternType.LITERAL;
import static io.tributary.common.security.acl.AclPatternType.MATCH;
import static io.tributary.common.security.acl.AclPatternType.PREFIXED;
import static io.tributary.common.security.acl.AclPermission.ALLOW;
import static io.tributary.common.security.acl.AclPermission.DENY;
import static io.tributary.common.security.acl.AclResourceType.GROUP;
import static io.tributary.common.security.acl.AclResourceType.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AclBindingFilterTest {

    private static final AclBinding LITERAL_ORDERS =
            new AclBinding(TOPIC, "orders", LITERAL, "User:alice", "*", READ, ALLOW);
    private static final AclBinding LITERAL_ALL = new AclBinding(TOPIC, "*", LITERAL, "User:bob", "*", READ, ALLOW);
    private static final AclBinding PREFIX_ORD = new AclBinding(TOPIC, "ord", PREFIXED, "User:alice", "*", WRITE, DENY);
    private static final AclBinding PREFIX_OTHER = new AclBinding(TOPIC, "x", PREFIXED, "User:alice", "*", READ, ALLOW);
    private static final AclBinding GROUP_ORDERS =
            new AclBinding(GROUP, "orders", LITERAL, "User:alice", "10.0.0.1", READ, ALLOW);
    private static final List<AclBinding> ALL =
            List.of(LITERAL_ORDERS, LITERAL_ALL, PREFIX_ORD, PREFIX_OTHER, GROUP_ORDERS);

    private static List<AclBinding> select(AclBindingFilter filter) {
        return ALL.stream().filter(filter::matches).toList();
    }

    private static AclBindingFilter pattern(AclResourceType type, String name, AclPatternType patternType) {
        return new AclBindingFilter(type, name, patternType, null, null, AclOperation.ANY, AclPermission.ANY);
    }

    @Test
    void anyMatchesEverything() {
        assertThat(select(AclBindingFilter.ANY)).isEqualTo(ALL);
    }

    @Test
    void matchSelectsEveryPatternThatCoversTheName() {
        assertThat(select(pattern(TOPIC, "orders", MATCH))).containsExactly(LITERAL_ORDERS, LITERAL_ALL, PREFIX_ORD);
        assertThat(select(pattern(AclResourceType.ANY, "orders", MATCH)))
                .containsExactly(LITERAL_ORDERS, LITERAL_ALL, PREFIX_ORD, GROUP_ORDERS);
    }

    @Test
    void aConcretePatternTypeOrAnyComparesTheNameAsGiven() {
        assertThat(select(pattern(TOPIC, "orders", LITERAL))).containsExactly(LITERAL_ORDERS);
        assertThat(select(pattern(TOPIC, "ord", PREFIXED))).containsExactly(PREFIX_ORD);
        assertThat(select(pattern(TOPIC, "ord", AclPatternType.ANY))).containsExactly(PREFIX_ORD);
        assertThat(select(pattern(TOPIC, null, PREFIXED))).containsExactly(PREFIX_ORD, PREFIX_OTHER);
    }

    @Test
    void entryFieldsFilterByPrincipalHostOperationAndPermission() {
        assertThat(select(new AclBindingFilter(
                        AclResourceType.ANY, null, AclPatternType.ANY, "User:alice", null, READ, AclPermission.ANY)))
                .containsExactly(LITERAL_ORDERS, PREFIX_OTHER, GROUP_ORDERS);
        assertThat(select(new AclBindingFilter(
                        AclResourceType.ANY, null, AclPatternType.ANY, null, "10.0.0.1", AclOperation.ANY, ALLOW)))
                .containsExactly(GROUP_ORDERS);
        assertThat(select(new AclBindingFilter(
                        AclResourceType.ANY, null, AclPatternType.ANY, null, null, AclOperation.ANY, DENY)))
                .containsExactly(PREFIX_ORD);
    }

    @Test
    void unknownCodesMakeAFilterInvalidWithKafkasMessages() {
        assertThat(AclBindingFilter.ANY.invalidReason()).isNull();
        assertThat(pattern(AclResourceType.UNKNOWN, null, LITERAL).invalidReason())
                .isEqualTo("Unknown patternFilter.");
        assertThat(pattern(TOPIC, null, AclPatternType.UNKNOWN).invalidReason()).isEqualTo("Unknown patternFilter.");
        assertThat(new AclBindingFilter(TOPIC, null, LITERAL, null, null, AclOperation.UNKNOWN, ALLOW).invalidReason())
                .isEqualTo("Unknown entryFilter.");
    }

    @Test
    void wireCodesRoundTripAndUnknownCodesMapToUnknown() {
        for (AclOperation op : AclOperation.values()) {
            assertThat(AclOperation.fromCode(op.code())).isEqualTo(op);
        }
        for (AclResourceType type : AclResourceType.values()) {
            assertThat(AclResourceType.fromCode(type.code())).isEqualTo(type);
        }
        for (AclPatternType type : AclPatternType.values()) {
            assertThat(AclPatternType.fromCode(type.code())).isEqualTo(type);
        }
        for (AclPermission permission : AclPermission.values()) {
            assertThat(AclPermission.fromCode(permission.code())).isEqualTo(permission);
        }
        assertThat(AclOperation.fromCode((byte) 99)).isEqualTo(AclOperation.UNKNOWN);
        assertThat(AclResourceType.fromCode((byte) -1)).isEqualTo(AclResourceType.UNKNOWN);
        assertThat(KafkaPrincipal.parse("User:CN=a:b")).isEqualTo(new KafkaPrincipal("User", "CN=a:b"));
    }
}
