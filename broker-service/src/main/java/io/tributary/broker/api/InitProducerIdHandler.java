package io.tributary.broker.api;

import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.Objects;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * InitProducerId (API key 22), versions 0 to 5 (6, two-phase commit, is unstable in kafka-clients'
 * message spec and not advertised), for idempotent producers.
 *
 * <ul>
 *   <li>No transactional id, with an authorizer: the caller needs IDEMPOTENT_WRITE on the cluster
 *       or WRITE on some topic (KIP-679, {@link AccessControl#allowedOnAnyResource}), else
 *       CLUSTER_AUTHORIZATION_FAILED, before the request is looked at further, as in Kafka.
 *   <li>No transactional id: a new producer id from {@link ProducerIdAllocator} and epoch 0, on every
 *       call, as Kafka's broker answers an idempotent producer. That includes a re-initialisation that
 *       sends its current producer id and epoch (v3+, KIP-360): Kafka ignores them for producers
 *       without a transactional id and hands out a fresh id, which can fence no one else and needs no
 *       epoch overflow rule; Tributary does the same so that both answer alike. A request with only
 *       one of producer id and epoch set is INVALID_REQUEST, as in Kafka.
 *   <li>When no id can be had (the coordinators are unreachable, or this broker is not registered yet):
 *       COORDINATOR_LOAD_IN_PROGRESS, which kafka-clients and librdkafka retry.
 *   <li>A transactional id: TRANSACTIONAL_ID_AUTHORIZATION_FAILED. Transactions are not supported
 *       yet. The response has no message field, so the code is what the client shows: this one is
 *       fatal in kafka-clients and librdkafka and names the transactional id as the problem, where any
 *       other non-retriable code becomes an "unexpected error". kafka-clients' producer normally
 *       never gets here: it looks up its transaction coordinator first, and {@link
 *       FindCoordinatorHandler} refuses that with a message saying transactions are not supported.
 * </ul>
 *
 * <p>Thread-safety: thread-safe (the allocator is).
 */
public final class InitProducerIdHandler implements RequestHandler {

    private static final Logger log = LoggerFactory.getLogger(InitProducerIdHandler.class);

    /**
     * The newest version served: v6 (two-phase commit, KIP-939) is marked unstable in kafka-clients'
     * message spec, and Kafka's brokers do not advertise unstable versions.
     */
    static final int LATEST_STABLE = 5;

    /** Kafka's "no producer id" and "no epoch". */
    static final long NO_PRODUCER_ID = -1L;

    static final short NO_PRODUCER_EPOCH = -1;

    private final ProducerIdAllocator producerIds;
    private final AccessControl acls;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public InitProducerIdHandler(ProducerIdAllocator producerIds) {
        this(producerIds, AccessControl.OPEN);
    }

    /** @param acls who may produce idempotently: IDEMPOTENT_WRITE on the cluster, or WRITE on any topic */
    public InitProducerIdHandler(ProducerIdAllocator producerIds, AccessControl acls) {
        this.producerIds = Objects.requireNonNull(producerIds, "producerIds");
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return ApiVersionRange.of(ApiKeys.INIT_PRODUCER_ID, ApiKeys.INIT_PRODUCER_ID.oldestVersion(), LATEST_STABLE);
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        InitProducerIdRequestData data =
                request.body(InitProducerIdRequest.class).data();
        if (data.transactionalId() != null) {
            return error(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        // the cluster probe is quiet: a producer with WRITE on a topic is expected to lack it
        boolean idempotentWrite = acls.allowedQuietly(
                        request.connection(),
                        AclOperation.IDEMPOTENT_WRITE,
                        AclResourceType.CLUSTER,
                        AclResourceType.CLUSTER_NAME)
                || acls.allowedOnAnyResource(request.connection(), AclOperation.WRITE, AclResourceType.TOPIC);
        if (!idempotentWrite) {
            return error(Errors.CLUSTER_AUTHORIZATION_FAILED);
        }
        boolean hasId = data.producerId() != NO_PRODUCER_ID;
        boolean hasEpoch = data.producerEpoch() != NO_PRODUCER_EPOCH;
        if (hasId != hasEpoch) {
            return error(Errors.INVALID_REQUEST);
        }
        try {
            long producerId = producerIds.nextProducerId();
            return new InitProducerIdResponse(new InitProducerIdResponseData()
                    .setErrorCode(Errors.NONE.code())
                    .setProducerId(producerId)
                    .setProducerEpoch((short) 0));
        } catch (ControlPlaneException e) {
            log.warn("No producer id for {}: {}", request.connection().id(), e.getMessage());
            return error(Errors.COORDINATOR_LOAD_IN_PROGRESS);
        }
    }

    private static InitProducerIdResponse error(Errors error) {
        return new InitProducerIdResponse(new InitProducerIdResponseData()
                .setErrorCode(error.code())
                .setProducerId(NO_PRODUCER_ID)
                .setProducerEpoch(NO_PRODUCER_EPOCH));
    }
}
