package io.tributary.broker.api;

import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsResponseData.AclDescription;
import org.apache.kafka.common.message.DescribeAclsResponseData.DescribeAclsResource;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;

/**
 * DescribeAcls (API key 29), versions 1 to 3 (Kafka 4.x's), answered from this broker's cluster
 * image as Kafka's brokers answer it from their authorizer's cache: every stored ACL the filter
 * matches ({@link AclBindingFilter}: MATCH finds the literal, wildcard and prefix patterns a name
 * falls under), grouped by resource pattern. The caller's cluster DESCRIBE is checked before
 * ({@code RequestAuthorizer}). Without an authorizer the answer is {@code SECURITY_DISABLED} ("No
 * Authorizer is configured on the broker"), as Kafka's.
 *
 * <p>The ACLs are those of the newest image: a CreateAcls answered by this broker is in it (the
 * handler waited for it); one answered by another broker is once this broker's metadata follower
 * caught up.
 *
 * <p>Thread-safety: stateless.
 */
public final class DescribeAclsHandler implements RequestHandler {

    private final MetadataView metadata;
    private final AccessControl access;

    public DescribeAclsHandler(MetadataView metadata, AccessControl access) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.access = Objects.requireNonNull(access, "access");
    }

    @Override
    public ApiVersionRange versions() {
        return ApiVersionRange.of(ApiKeys.DESCRIBE_ACLS, 1, 3);
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        short version = request.header().apiVersion();
        var response = new DescribeAclsResponseData();
        if (!access.enabled()) {
            return new DescribeAclsResponse(
                    response.setErrorCode(Errors.SECURITY_DISABLED.code()).setErrorMessage(AclWire.NO_AUTHORIZER),
                    version);
        }
        DescribeAclsRequestData data = request.body(DescribeAclsRequest.class).data();
        AclBindingFilter filter = AclWire.filter(
                data.resourceTypeFilter(),
                data.resourceNameFilter(),
                data.patternTypeFilter(),
                data.principalFilter(),
                data.hostFilter(),
                data.operation(),
                data.permissionType());
        Map<List<Object>, DescribeAclsResource> resources = new LinkedHashMap<>();
        for (AclBinding acl : metadata.image().acls().matching(filter)) {
            DescribeAclsResource resource = resources.computeIfAbsent(
                    List.of(acl.resourceType(), acl.resourceName(), acl.patternType()),
                    k -> new DescribeAclsResource()
                            .setResourceType(acl.resourceType().code())
                            .setResourceName(acl.resourceName())
                            .setPatternType(acl.patternType().code())
                            .setAcls(new ArrayList<>()));
            resource.acls()
                    .add(new AclDescription()
                            .setPrincipal(acl.principal())
                            .setHost(acl.host())
                            .setOperation(acl.operation().code())
                            .setPermissionType(acl.permission().code()));
        }
        return new DescribeAclsResponse(response.setResources(new ArrayList<>(resources.values())), version);
    }
}
