package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.RequestAuthorizer;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreateAclsResponse;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

/**
 * CreateAcls, DescribeAcls and DeleteAcls through their handlers, with kafka-clients' requests and
 * responses: forwarded writes, answers from the broker's image, SECURITY_DISABLED without an
 * authorizer, and the cluster checks of the {@link RequestAuthorizer} in front (the caller is {@code
 * User:ANONYMOUS} from 127.0.0.1).
 */
class AclHandlersTest {

    private static final AclAuthorizer.Settings ANONYMOUS_SUPER =
            new AclAuthorizer.Settings(Set.of(KafkaPrincipal.ANONYMOUS), false);

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(1);
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);

    private static AccessControl acls(AclAuthorizer.Settings settings, FakeControlPlane controlPlane) {
        return AccessControl.of(
                () -> AclAuthorizer.of(controlPlane.image().acls().bindings(), settings));
    }

    private final AccessControl superUser = acls(ANONYMOUS_SUPER, controlPlane);

    private RequestHandler create(AccessControl access) {
        return new CreateAclsHandler(metadata, controlPlane, AdminApiConfig.defaults(), access);
    }

    private RequestHandler describe(AccessControl access) {
        return new DescribeAclsHandler(metadata, access);
    }

    private RequestHandler delete(AccessControl access) {
        return new DeleteAclsHandler(metadata, controlPlane, AdminApiConfig.defaults(), access);
    }

    private static AclBinding binding(ResourceType type, String name, PatternType pattern, String principal) {
        return new AclBinding(
                new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", AclOperation.READ, AclPermissionType.ALLOW));
    }

    private static CreateAclsRequest.Builder creating(AclBinding... bindings) {
        return new CreateAclsRequest.Builder(new CreateAclsRequestData()
                .setCreations(List.of(bindings).stream()
                        .map(CreateAclsRequest::aclCreation)
                        .toList()));
    }

    private static DeleteAclsRequest.Builder deleting(AclBindingFilter... filters) {
        return new DeleteAclsRequest.Builder(new DeleteAclsRequestData()
                .setFilters(List.of(filters).stream()
                        .map(DeleteAclsRequest::deleteAclsFilter)
                        .toList()));
    }

    private static AclBindingFilter topicFilter(String name, PatternType pattern) {
        return new AclBindingFilter(
                new ResourcePatternFilter(ResourceType.TOPIC, name, pattern), AccessControlEntryFilter.ANY);
    }

    private static final AclBinding ORDERS = binding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:bob");
    private static final AclBinding ORD_PREFIX = binding(ResourceType.TOPIC, "ord", PatternType.PREFIXED, "User:bob");
    private static final AclBinding ALL_TOPICS = binding(ResourceType.TOPIC, "*", PatternType.LITERAL, "User:carol");
    private static final AclBinding GROUP = binding(ResourceType.GROUP, "g", PatternType.LITERAL, "User:bob");

    @Test
    void withoutAnAuthorizerEveryAclApiAnswersSecurityDisabled() {
        CreateAclsResponse created = Wire.call(create(AccessControl.OPEN), creating(ORDERS), 3);
        DescribeAclsResponse described =
                Wire.call(describe(AccessControl.OPEN), new DescribeAclsRequest.Builder(AclBindingFilter.ANY), 3);
        DeleteAclsResponse deleted = Wire.call(delete(AccessControl.OPEN), deleting(AclBindingFilter.ANY), 3);

        assertThat(created.results().getFirst().errorCode()).isEqualTo(Errors.SECURITY_DISABLED.code());
        assertThat(created.results().getFirst().errorMessage()).isEqualTo("No Authorizer is configured.");
        assertThat(described.error().error()).isEqualTo(Errors.SECURITY_DISABLED);
        assertThat(described.error().message()).isEqualTo("No Authorizer is configured on the broker");
        assertThat(deleted.filterResults().getFirst().errorCode()).isEqualTo(Errors.SECURITY_DISABLED.code());
        assertThat(controlPlane.writes.get()).isZero();
    }

    @Test
    void createdAclsAreDescribedFromTheImageByFilterAndGroupedByResourcePattern() {
        AclBinding noColon = binding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "bob");
        CreateAclsResponse created =
                Wire.call(create(superUser), creating(ORDERS, noColon, ORD_PREFIX, ALL_TOPICS, GROUP), 3);

        assertThat(created.results())
                .extracting(r -> Errors.forCode(r.errorCode()))
                .containsExactly(Errors.NONE, Errors.INVALID_REQUEST, Errors.NONE, Errors.NONE, Errors.NONE);
        assertThat(metadata.waits).hasSize(1);
        DescribeAclsResponse all =
                Wire.call(describe(superUser), new DescribeAclsRequest.Builder(AclBindingFilter.ANY), 3);
        assertThat(DescribeAclsResponse.aclBindings(all.acls()))
                .containsExactlyInAnyOrder(ORDERS, ORD_PREFIX, ALL_TOPICS, GROUP);
        DescribeAclsResponse match = Wire.call(
                describe(superUser), new DescribeAclsRequest.Builder(topicFilter("orders", PatternType.MATCH)), 2);
        assertThat(DescribeAclsResponse.aclBindings(match.acls()))
                .containsExactlyInAnyOrder(ORDERS, ORD_PREFIX, ALL_TOPICS);
        assertThat(match.acls()).hasSize(3);
        DescribeAclsResponse literal = Wire.call(
                describe(superUser), new DescribeAclsRequest.Builder(topicFilter("orders", PatternType.LITERAL)), 1);
        assertThat(DescribeAclsResponse.aclBindings(literal.acls())).containsExactly(ORDERS);
    }

    @Test
    void eachDeletionFilterAnswersWhatItMatchedAndTheAclsAreGone() {
        Wire.call(create(superUser), creating(ORDERS, ORD_PREFIX, GROUP), 3);

        DeleteAclsResponse deleted = Wire.call(
                delete(superUser), deleting(topicFilter("orders", PatternType.MATCH), AclBindingFilter.ANY), 3);

        assertThat(deleted.filterResults().get(0).matchingAcls())
                .extracting(m -> m.resourceName())
                .containsExactlyInAnyOrder("orders", "ord");
        assertThat(deleted.filterResults().get(1).matchingAcls()).hasSize(3);
        assertThat(controlPlane.image().acls().bindings()).isEmpty();
    }

    @Test
    void aControlPlaneFailureAnswersEveryCreationAndFilterWithNotController() {
        controlPlane.failNext(ControlPlaneException.Kind.UNAVAILABLE, "no leader");
        CreateAclsResponse created = Wire.call(create(superUser), creating(ORDERS, GROUP), 3);
        controlPlane.failNext(ControlPlaneException.Kind.UNAVAILABLE, "no leader");
        DeleteAclsResponse deleted = Wire.call(delete(superUser), deleting(AclBindingFilter.ANY), 3);

        assertThat(created.results())
                .extracting(r -> Errors.forCode(r.errorCode()))
                .containsExactly(Errors.NOT_CONTROLLER, Errors.NOT_CONTROLLER);
        assertThat(deleted.filterResults().getFirst().errorCode()).isEqualTo(Errors.NOT_CONTROLLER.code());
    }

    @Test
    void theAclApisNeedClusterAlterOrDescribeOfTheCaller() {
        AccessControl closed = acls(new AclAuthorizer.Settings(Set.of(), false), controlPlane);
        RequestAuthorizer authorizer = new RequestAuthorizer(closed);
        List<RequestHandler> guarded = authorizer.guard(List.of(create(closed), describe(closed), delete(closed)));

        CreateAclsResponse created = Wire.call(guarded.get(0), creating(ORDERS), 3);
        DescribeAclsResponse described =
                Wire.call(guarded.get(1), new DescribeAclsRequest.Builder(AclBindingFilter.ANY), 3);
        DeleteAclsResponse deleted = Wire.call(guarded.get(2), deleting(AclBindingFilter.ANY), 3);

        assertThat(created.results().getFirst().errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        assertThat(described.error().error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED);
        assertThat(deleted.filterResults().getFirst().errorCode())
                .isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        assertThat(controlPlane.writes.get()).isZero();

        Wire.call(
                create(superUser),
                creating(new AclBinding(
                        new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                        new AccessControlEntry("User:ANONYMOUS", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW))),
                3);
        DescribeAclsResponse allowed =
                Wire.call(guarded.get(1), new DescribeAclsRequest.Builder(AclBindingFilter.ANY), 3);
        assertThat(allowed.error().error()).isEqualTo(Errors.NONE);
        assertThat(DescribeAclsResponse.aclBindings(allowed.acls())).hasSize(1);
    }
}
