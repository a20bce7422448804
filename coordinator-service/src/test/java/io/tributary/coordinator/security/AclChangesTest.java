package io.tributary.coordinator.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.coordinator.metadata.AclSet;
import io.tributary.coordinator.metadata.MetadataCommand.CreateAcls;
import io.tributary.coordinator.security.AclChanges.Outcome;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** CreateAcls' and DeleteAcls' answers as Kafka 4.4's controller gives them (checked against the secured peer). */
class AclChangesTest {

    private final AclChanges changes = new AclChanges(100);

    private static AclBinding acl(AclResourceType type, String name, AclPatternType pattern, String principal) {
        return new AclBinding(type, name, pattern, principal, "*", AclOperation.READ, AclPermission.ALLOW);
    }

    private static AclBinding topic(String name, String principal) {
        return acl(AclResourceType.TOPIC, name, AclPatternType.LITERAL, principal);
    }

    private static Outcome invalid(String message) {
        return new Outcome(Errors.INVALID_REQUEST, message);
    }

    @Test
    void eachCreationGetsKafkasAnswerInRequestOrderAndOnlyTheValidOnesAreWritten() {
        AclBinding ok = topic("t", "User:bob");
        AclBinding prefixedWildcard = acl(AclResourceType.TOPIC, "*", AclPatternType.PREFIXED, "User:bob");
        AclBinding prefixedCluster = acl(AclResourceType.CLUSTER, "kafka-cluster", AclPatternType.PREFIXED, "User:b");
        AclBinding clusterPrefix = acl(AclResourceType.CLUSTER, "kafka", AclPatternType.PREFIXED, "User:bob");
        AclBinding clusterWildcard = acl(AclResourceType.CLUSTER, "*", AclPatternType.LITERAL, "User:bob");
        AclBinding empty = topic("", "User:bob");
        AclBinding noColon = topic("t", "bob");
        AclBinding emptyHost = new AclBinding(
                AclResourceType.TOPIC,
                "t",
                AclPatternType.LITERAL,
                "User:bob",
                "",
                AclOperation.READ,
                AclPermission.ALLOW);
        AclBinding cidr = new AclBinding(
                AclResourceType.TOPIC,
                "t",
                AclPatternType.LITERAL,
                "User:bob",
                "10.0.0.0/8",
                AclOperation.READ,
                AclPermission.ALLOW);
        AclBinding anyType = acl(AclResourceType.ANY, "t", AclPatternType.LITERAL, "User:bob");
        AclBinding matchPattern = acl(AclResourceType.TOPIC, "t", AclPatternType.MATCH, "User:bob");
        AclBinding oddPrincipal = topic("t", ":bob");

        AclChanges.CreatePlan plan = changes.planCreate(
                AclSet.EMPTY,
                List.of(
                        ok,
                        prefixedWildcard,
                        prefixedCluster,
                        clusterPrefix,
                        clusterWildcard,
                        empty,
                        noColon,
                        emptyHost,
                        cidr,
                        anyType,
                        matchPattern,
                        oddPrincipal,
                        ok));

        String clusterName = "The only valid name for the CLUSTER resource is kafka-cluster";
        assertThat(plan.results())
                .containsExactly(
                        Outcome.NONE,
                        Outcome.NONE,
                        Outcome.NONE,
                        invalid(clusterName),
                        invalid(clusterName),
                        invalid("Invalid empty resource name"),
                        invalid("Could not parse principal from `bob` (no colon is present separating the principal"
                                + " type from the principal name)"),
                        invalid("Host pattern cannot be null or empty"),
                        new Outcome(Errors.UNSUPPORTED_VERSION, AclChanges.CIDR_UNSUPPORTED),
                        invalid("Invalid resourceType ANY"),
                        invalid("Invalid patternType MATCH"),
                        Outcome.NONE,
                        Outcome.NONE);
        assertThat(plan.command())
                .contains(new CreateAcls(List.of(ok, prefixedWildcard, prefixedCluster, oddPrincipal)));
    }

    @Test
    void anAclAlreadyStoredIsASuccessWithoutACommand() {
        AclSet stored = AclSet.of(List.of(topic("t", "User:bob")));

        AclChanges.CreatePlan plan = changes.planCreate(stored, List.of(topic("t", "User:bob")));

        assertThat(plan.results()).containsExactly(Outcome.NONE);
        assertThat(plan.command()).isEmpty();
    }

    @Test
    void creationsPastTheBoundArePolicyViolationsAndStoredOnesStillSucceed() {
        AclChanges small = new AclChanges(2);
        AclSet stored = AclSet.of(List.of(topic("a", "User:bob")));

        AclChanges.CreatePlan plan = small.planCreate(
                stored, List.of(topic("b", "User:bob"), topic("c", "User:bob"), topic("a", "User:bob")));

        assertThat(plan.results())
                .extracting(Outcome::error)
                .containsExactly(Errors.NONE, Errors.POLICY_VIOLATION, Errors.NONE);
        assertThat(plan.results().get(1).message()).isEqualTo("2 ACLs are stored; the limit is 2");
        assertThat(plan.command()).contains(new CreateAcls(List.of(topic("b", "User:bob"))));
    }

    @Test
    void everyFilterAnswersAllItMatchesEvenWhenAnEarlierFilterMatchedThemAndEachIsDeletedOnce() {
        AclBinding t = topic("t", "User:bob");
        AclBinding prefix = acl(AclResourceType.TOPIC, "t", AclPatternType.PREFIXED, "User:bob");
        AclBinding group = acl(AclResourceType.GROUP, "g", AclPatternType.LITERAL, "User:bob");
        AclSet stored = AclSet.of(List.of(t, prefix, group));
        AclBindingFilter matchT = new AclBindingFilter(
                AclResourceType.TOPIC, "tx", AclPatternType.MATCH, null, null, AclOperation.ANY, AclPermission.ANY);
        AclBindingFilter unknown = new AclBindingFilter(
                AclResourceType.UNKNOWN, null, AclPatternType.ANY, null, null, AclOperation.ANY, AclPermission.ANY);

        AclChanges.DeletePlan plan = changes.planDelete(stored, List.of(matchT, AclBindingFilter.ANY, unknown));

        assertThat(plan.results().get(0).matched()).containsExactly(prefix);
        assertThat(plan.results().get(1).matched()).containsExactlyInAnyOrder(t, prefix, group);
        assertThat(plan.results().get(2).outcome()).isEqualTo(invalid("Unknown patternFilter."));
        assertThat(plan.command().orElseThrow().acls()).containsExactlyInAnyOrder(t, prefix, group);
    }

    @Test
    void aFilterMatchingNothingDeletesNothing() {
        AclChanges.DeletePlan plan = changes.planDelete(AclSet.EMPTY, List.of(AclBindingFilter.ANY));

        assertThat(plan.results().getFirst().outcome()).isEqualTo(Outcome.NONE);
        assertThat(plan.results().getFirst().matched()).isEmpty();
        assertThat(plan.command()).isEmpty();
    }
}
