package io.tributary.broker.api;

import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlane.AclDeletion;
import io.tributary.broker.cluster.ControlPlane.AclFilterOutcome;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.message.DeleteAclsRequestData.DeleteAclsFilter;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsFilterResult;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsMatchingAcl;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;

/**
 * DeleteAcls (API key 31), versions 1 to 3: forwarded to the coordinators' control plane after the
 * caller's cluster ALTER was checked ({@code RequestAuthorizer}). Each filter answers every stored
 * ACL it matched (an ACL matched by several filters is in each of their answers, as Kafka 4.4
 * answers), all of them deleted in one Raft command; a filter with an unknown code is {@code
 * INVALID_REQUEST}. The answer waits, up to {@link AdminApiConfig#maxMetadataWait()}, until this
 * broker's image is without them. Every ACL deleted is an audit line.
 *
 * <p>Without an authorizer every filter is {@code SECURITY_DISABLED}, as Kafka's. A control-plane
 * failure answers every filter with the mapped error ({@link ControlPlaneErrors}).
 *
 * <p>Thread-safety: stateless.
 */
public final class DeleteAclsHandler extends AclWriteHandler {

    public DeleteAclsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl access) {
        super(metadata, controlPlane, config, access);
    }

    @Override
    public ApiVersionRange versions() {
        return ApiVersionRange.of(ApiKeys.DELETE_ACLS, 1, 3);
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        DeleteAclsRequest body = request.body(DeleteAclsRequest.class);
        if (!access.enabled()) {
            return body.getErrorResponse(0, new SecurityDisabledException(AclWire.NO_AUTHORIZER_CONFIGURED));
        }
        List<AclBindingFilter> filters = new ArrayList<>();
        for (DeleteAclsFilter f : body.data().filters()) {
            filters.add(AclWire.filter(
                    f.resourceTypeFilter(),
                    f.resourceNameFilter(),
                    f.patternTypeFilter(),
                    f.principalFilter(),
                    f.hostFilter(),
                    f.operation(),
                    f.permissionType()));
        }
        List<DeleteAclsFilterResult> results = new ArrayList<>();
        try {
            AclDeletion answer = controlPlane.deleteAcls(filters);
            List<AclBinding> deleted = new ArrayList<>();
            for (AclFilterOutcome outcome : answer.results()) {
                Errors error = ControlPlaneErrors.named(outcome.outcome().error());
                List<DeleteAclsMatchingAcl> matching = new ArrayList<>();
                for (AclBinding acl : outcome.matched()) {
                    matching.add(matchingAcl(acl));
                    if (!deleted.contains(acl)) {
                        deleted.add(acl);
                    }
                }
                results.add(new DeleteAclsFilterResult()
                        .setErrorCode(error.code())
                        .setErrorMessage(outcome.outcome().message())
                        .setMatchingAcls(matching));
            }
            deleted.forEach(acl -> AclWire.auditChange(request, "acl deleted", acl));
            if (!deleted.isEmpty()) {
                awaitWrite(answer.version());
            }
        } catch (ControlPlaneException e) {
            ApiError error = ControlPlaneErrors.toApiError(e);
            results.clear();
            filters.forEach(f -> results.add(new DeleteAclsFilterResult()
                    .setErrorCode(error.error().code())
                    .setErrorMessage(error.message())));
        }
        return new DeleteAclsResponse(
                new DeleteAclsResponseData().setFilterResults(results),
                request.header().apiVersion());
    }

    private static DeleteAclsMatchingAcl matchingAcl(AclBinding acl) {
        return new DeleteAclsMatchingAcl()
                .setResourceType(acl.resourceType().code())
                .setResourceName(acl.resourceName())
                .setPatternType(acl.patternType().code())
                .setPrincipal(acl.principal())
                .setHost(acl.host())
                .setOperation(acl.operation().code())
                .setPermissionType(acl.permission().code());
    }
}
