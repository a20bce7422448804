package io.tributary.broker.cluster;

import io.tributary.broker.cluster.ControlPlane.AclCreation;
import io.tributary.broker.cluster.ControlPlane.AclDeletion;
import io.tributary.broker.cluster.ControlPlane.AclFilterOutcome;
import io.tributary.broker.cluster.ControlPlane.AclOutcome;
import io.tributary.broker.cluster.ControlPlane.QuotaAlteration;
import io.tributary.broker.cluster.ControlPlane.QuotaRequest;
import io.tributary.broker.cluster.ControlPlaneJson.AclJson;
import io.tributary.broker.cluster.ControlPlaneJson.AlterClientQuotasJson;
import io.tributary.broker.cluster.ControlPlaneJson.AlterClientQuotasRequest;
import io.tributary.broker.cluster.ControlPlaneJson.CreateAclsJson;
import io.tributary.broker.cluster.ControlPlaneJson.CreateAclsRequest;
import io.tributary.broker.cluster.ControlPlaneJson.DeleteAclsJson;
import io.tributary.broker.cluster.ControlPlaneJson.DeleteAclsRequest;
import io.tributary.broker.cluster.ControlPlaneJson.QuotaEntityPartJson;
import io.tributary.broker.cluster.ControlPlaneJson.QuotaEntryJson;
import io.tributary.broker.cluster.ControlPlaneJson.QuotaOpJson;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The ACL calls of {@link HttpControlPlane}: CreateAcls ({@code POST /internal/v1/acls}) and
 * DeleteAcls ({@code POST /internal/v1/acls/delete}), and AlterClientQuotas ({@code POST
 * /internal/v1/client-quotas}, a security change like them), sent through its request loop (leader
 * redirects, retries of what certainly did not reach the leader) and read into {@link ControlPlane}'s
 * values. Neither is retried once it may have reached the leader: a client retries its request.
 *
 * <p>Thread-safety: stateless beyond the {@link Caller}.
 */
final class HttpAclCalls {

    /** {@link HttpControlPlane}'s request loop: method, path under {@code /internal/v1}, body, answer type. */
    @FunctionalInterface
    interface Caller {
        <T> T call(String method, String path, Object body, Duration longPollWait, Class<T> answerType);
    }

    private final Caller caller;

    HttpAclCalls(Caller caller) {
        this.caller = Objects.requireNonNull(caller, "caller");
    }

    AclCreation create(List<AclBinding> creations) {
        var body = new CreateAclsRequest(creations.stream().map(AclJson::of).toList());
        CreateAclsJson answer = caller.call("POST", "/acls", body, Duration.ZERO, CreateAclsJson.class);
        return HttpControlPlane.convert(() -> new AclCreation(
                HttpControlPlane.version(answer.version()),
                answer.results().stream()
                        .map(r -> new AclOutcome(Objects.requireNonNull(r.error(), "error"), r.message()))
                        .toList()));
    }

    /** AlterClientQuotas ({@code POST /internal/v1/client-quotas}); like the ACL calls, never retried once sent. */
    QuotaAlteration alterClientQuotas(QuotaRequest request) {
        var body = new AlterClientQuotasRequest(
                request.entries().stream()
                        .map(e -> new QuotaEntryJson(
                                e.entity().stream()
                                        .map(p -> new QuotaEntityPartJson(p.entityType(), p.name()))
                                        .toList(),
                                e.ops().stream()
                                        .map(o -> new QuotaOpJson(o.key(), o.remove() ? null : o.value(), o.remove()))
                                        .toList()))
                        .toList(),
                request.validateOnly());
        AlterClientQuotasJson answer =
                caller.call("POST", "/client-quotas", body, Duration.ZERO, AlterClientQuotasJson.class);
        return HttpControlPlane.convert(() -> new QuotaAlteration(
                HttpControlPlane.version(answer.version()),
                answer.results().stream()
                        .map(r -> new AclOutcome(Objects.requireNonNull(r.error(), "error"), r.message()))
                        .toList()));
    }

    AclDeletion delete(List<AclBindingFilter> filters) {
        var body = new DeleteAclsRequest(filters.stream().map(AclJson::of).toList());
        DeleteAclsJson answer = caller.call("POST", "/acls/delete", body, Duration.ZERO, DeleteAclsJson.class);
        return HttpControlPlane.convert(() -> new AclDeletion(
                HttpControlPlane.version(answer.version()),
                answer.results().stream()
                        .map(r -> new AclFilterOutcome(
                                new AclOutcome(Objects.requireNonNull(r.error(), "error"), r.message()),
                                r.matched().stream().map(AclJson::toBinding).toList()))
                        .toList()));
    }
}
