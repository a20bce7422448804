package io.tributary.common.protocol;

import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.ApiAccess;
import io.tributary.common.security.acl.ApiAccess.Check;
import io.tributary.common.security.acl.ApiAccess.Placement;
import io.tributary.common.security.acl.ApiAccess.Rule;
import io.tributary.common.security.acl.ApiAccess.Target;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;

/**
 * Refuses, before its handler sees it, a request whose caller lacks a permission that Kafka checks
 * on the request as a whole ({@link ApiAccess}: a {@link Placement#WHOLE} check on the cluster, on
 * the request's group id or on its transactional id), with the answer Kafka gives: the request's
 * own error response carrying {@code CLUSTER_}, {@code GROUP_} or {@code
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED}. The checks on each topic or group a request names are the
 * handlers' ({@link Placement#PER_ITEM}, {@link Placement#FILTERED}). A {@link
 * Placement#SUFFICIENT} check on the cluster that allows ends the request's whole-request checks.
 *
 * <p>Handlers are put behind it with {@link #guard}. The ACLs in force are read on every request,
 * so a new set takes effect on the next one. Every refusal is written to the audit log
 * ({@value #AUDIT_LOGGER}, INFO): principal, host, API, operation, resource.
 *
 * <p>Thread-safety: safe for concurrent requests when {@code acls} is.
 */
public final class RequestAuthorizer {

    /** The logger of refused requests. */
    public static final String AUDIT_LOGGER = "io.tributary.security.audit";

    private final AccessControl access;

    /** @param access the ACLs in force ({@link AccessControl#OPEN}: every request passes) */
    public RequestAuthorizer(AccessControl access) {
        this.access = Objects.requireNonNull(access, "access");
    }

    /**
     * {@code handlers}, each behind this authorizer; as they are without an authorizer ({@link
     * AccessControl#OPEN}), so a service without one serves exactly as before.
     */
    public List<RequestHandler> guard(Collection<? extends RequestHandler> handlers) {
        if (!access.enabled()) {
            return List.copyOf(handlers);
        }
        List<RequestHandler> guarded = new ArrayList<>(handlers.size());
        for (RequestHandler handler : handlers) {
            guarded.add(new Guarded(handler));
        }
        return guarded;
    }

    /**
     * The answer refusing {@code request}, or empty when its whole-request checks allow it (or its
     * API has none).
     */
    public Optional<AbstractResponse> refusal(KafkaRequest request) {
        ApiKeys api = request.header().apiKey();
        Optional<Rule> rule = ApiAccess.of(api);
        if (!access.enabled() || rule.isEmpty() || exempt(request.body())) {
            return Optional.empty();
        }
        short version = request.header().apiVersion();
        for (Check check : rule.get().checks()) {
            if (!check.appliesTo(version)) {
                continue;
            }
            String name = resource(check.target(), request.body());
            if (name == null) {
                continue; // a check on the request's own resource it does not name, or a handler's check
            }
            // quietly: a probe's refusal is expected, and a whole refusal is audited below with its API
            boolean allowed = access.allowedQuietly(request.connection(), check.operation(), check.type(), name);
            if (check.placement() == Placement.SUFFICIENT && allowed) {
                return Optional.empty();
            }
            if (check.placement() == Placement.WHOLE && !allowed) {
                AccessControl.audit(request.connection(), api.name, check.operation(), check.type(), name);
                return Optional.of(
                        request.body().getErrorResponse(0, check.denied().exception()));
            }
        }
        return Optional.empty();
    }

    /** Requests Kafka answers with another error before any permission is looked at. */
    private static boolean exempt(AbstractRequest body) {
        // SyncGroup v5+ without protocol type or name: INCONSISTENT_GROUP_PROTOCOL comes first
        return body instanceof SyncGroupRequest sync && !sync.areMandatoryProtocolTypeAndNamePresent();
    }

    /**
     * The name of the resource {@code target} means in {@code body}, for the targets this class
     * checks; null for the others (the handlers'), and for a request without the named resource.
     */
    private static String resource(Target target, AbstractRequest body) {
        return switch (target) {
            case CLUSTER -> AclResourceType.CLUSTER_NAME;
            case REQUEST_GROUP -> groupId(body);
            case REQUEST_TRANSACTIONAL_ID -> transactionalId(body);
            case EACH_TOPIC, EACH_GROUP, EACH_TRANSACTIONAL_ID, EACH_CONFIG_RESOURCE -> null;
        };
    }

    private static String groupId(AbstractRequest body) {
        return switch (body) {
            case JoinGroupRequest r -> r.data().groupId();
            case SyncGroupRequest r -> r.data().groupId();
            case HeartbeatRequest r -> r.data().groupId();
            case LeaveGroupRequest r -> r.data().groupId();
            case OffsetCommitRequest r -> r.data().groupId();
            case TxnOffsetCommitRequest r -> r.data().groupId();
            case OffsetDeleteRequest r -> r.data().groupId();
            case AddOffsetsToTxnRequest r -> r.data().groupId();
            case ConsumerGroupHeartbeatRequest r -> r.data().groupId();
            case StreamsGroupHeartbeatRequest r -> r.data().groupId();
            default -> throw new IllegalStateException(body.apiKey() + " has no group id of its own");
        };
    }

    private static String transactionalId(AbstractRequest body) {
        return switch (body) {
            case ProduceRequest r -> r.transactionalId();
            case InitProducerIdRequest r -> r.data().transactionalId();
            case AddOffsetsToTxnRequest r -> r.data().transactionalId();
            case EndTxnRequest r -> r.data().transactionalId();
            case TxnOffsetCommitRequest r -> r.data().transactionalId();
            default -> throw new IllegalStateException(body.apiKey() + " has no transactional id of its own");
        };
    }

    /** A handler behind the whole-request checks. */
    private final class Guarded implements RequestHandler {

        private final RequestHandler handler;

        Guarded(RequestHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
        }

        @Override
        public ApiVersionRange versions() {
            return handler.versions();
        }

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            return refusal(request).orElseGet(() -> handler.handle(request));
        }
    }
}
