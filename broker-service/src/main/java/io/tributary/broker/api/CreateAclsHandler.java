package io.tributary.broker.api;

import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlane.AclOutcome;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.security.acl.AclBinding;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.message.CreateAclsRequestData.AclCreation;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateAclsResponseData.AclCreationResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreateAclsResponse;

/**
 * CreateAcls (API key 30), versions 1 to 3: forwarded to the coordinators' control plane, as Kafka's
 * brokers forward it to the controller, after the caller's cluster ALTER was checked ({@code
 * RequestAuthorizer}). The coordinators' leader runs Kafka's per-ACL checks ({@code
 * io.tributary.coordinator.security.AclChanges}) and writes the new ACLs in one Raft command; each
 * creation gets its result in request order. The answer then waits, up to {@link
 * AdminApiConfig#maxMetadataWait()}, until this broker's image has them, so a DescribeAcls or a
 * request checked next sees them. Every ACL created is an audit line.
 *
 * <p>Without an authorizer every creation is {@code SECURITY_DISABLED} ("No Authorizer is
 * configured."), as Kafka's. A control-plane failure answers every creation with the mapped error
 * ({@link ControlPlaneErrors}).
 *
 * <p>Thread-safety: stateless.
 */
public final class CreateAclsHandler extends AclWriteHandler {

    public CreateAclsHandler(
            MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl access) {
        super(metadata, controlPlane, config, access);
    }

    @Override
    public ApiVersionRange versions() {
        return ApiVersionRange.of(ApiKeys.CREATE_ACLS, 1, 3);
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        CreateAclsRequest body = request.body(CreateAclsRequest.class);
        if (!access.enabled()) {
            return body.getErrorResponse(0, new SecurityDisabledException(AclWire.NO_AUTHORIZER_CONFIGURED));
        }
        List<AclBinding> creations = new ArrayList<>();
        for (AclCreation c : body.data().creations()) {
            creations.add(AclWire.binding(AclWire.filter(
                    c.resourceType(),
                    c.resourceName(),
                    c.resourcePatternType(),
                    c.principal(),
                    c.host(),
                    c.operation(),
                    c.permissionType())));
        }
        List<AclCreationResult> results = new ArrayList<>();
        try {
            ControlPlane.AclCreation answer = controlPlane.createAcls(creations);
            for (int i = 0; i < answer.results().size(); i++) {
                AclOutcome outcome = answer.results().get(i);
                Errors error = ControlPlaneErrors.named(outcome.error());
                results.add(new AclCreationResult().setErrorCode(error.code()).setErrorMessage(outcome.message()));
                if (error == Errors.NONE && i < creations.size()) {
                    AclWire.auditChange(request, "acl created", creations.get(i));
                }
            }
            awaitWrite(answer.version());
        } catch (ControlPlaneException e) {
            ApiError error = ControlPlaneErrors.toApiError(e);
            results.clear();
            creations.forEach(c -> results.add(
                    new AclCreationResult().setErrorCode(error.error().code()).setErrorMessage(error.message())));
        }
        return new CreateAclsResponse(new CreateAclsResponseData().setResults(results));
    }
}
