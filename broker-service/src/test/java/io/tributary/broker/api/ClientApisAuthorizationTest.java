package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.broker.cluster.ControlPlane.GroupCoordinator;
import io.tributary.broker.cluster.GroupCoordinatorLocator.Lookup;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.Optional;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.junit.jupiter.api.Test;

/**
 * FindCoordinator's per-key checks and InitProducerId's idempotent-producer check (KIP-679) over a
 * real ACL set ({@link TestAcls}) for the caller {@link Wire} sends as, with Kafka's answers.
 */
class ClientApisAuthorizationTest {

    private final TestAcls acls = TestAcls.wire();
    private final FindCoordinatorHandler findCoordinator = new FindCoordinatorHandler(
            () -> new Lookup.Found(new GroupCoordinator(2, "c2.example", 9193)),
            listener -> Optional.of(new FindCoordinatorHandler.Self(7, "b7.example", 9097)),
            acls.access);
    private final InitProducerIdHandler initProducerId = new InitProducerIdHandler(
            new ProducerIdAllocator(FakeControlPlane.withBrokers(1), () -> 0, 3, Runnable::run), acls.access);

    private FindCoordinatorResponse find(int version, CoordinatorType type, String... keys) {
        return FindCoordinatorHandlerTest.find(findCoordinator, version, type, keys);
    }

    @Test
    void findCoordinatorRefusesEachGroupKeyWithoutDescribeOnItsOwn() {
        acls.allow(AclResourceType.GROUP, "mine", AclOperation.READ); // READ implies DESCRIBE

        var coordinators =
                find(6, CoordinatorType.GROUP, "theirs", "mine").data().coordinators();

        assertThat(coordinators)
                .extracting(Coordinator::key, c -> Errors.forCode(c.errorCode()), Coordinator::nodeId)
                .containsExactly(tuple("theirs", Errors.GROUP_AUTHORIZATION_FAILED, -1), tuple("mine", Errors.NONE, 7));
    }

    @Test
    void findCoordinatorBeforeV4RefusesTheWholeAnswer() {
        var response = find(3, CoordinatorType.GROUP, "theirs");

        assertThat(response.error()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED);
        assertThat(response.data().nodeId()).isEqualTo(-1);
    }

    @Test
    void findCoordinatorOfATransactionNeedsDescribeOnTheTransactionalId() {
        assertThat(find(6, CoordinatorType.TRANSACTION, "tx")
                        .data()
                        .coordinators()
                        .getFirst()
                        .errorCode())
                .isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
        acls.allow(AclResourceType.TRANSACTIONAL_ID, "tx", AclOperation.DESCRIBE);
        // allowed, it gets Tributary's own answer: transactions are not supported
        assertThat(find(6, CoordinatorType.TRANSACTION, "tx")
                        .data()
                        .coordinators()
                        .getFirst()
                        .errorCode())
                .isEqualTo(Errors.INVALID_REQUEST.code());
    }

    @Test
    void findCoordinatorOfAShareGroupNeedsClusterActionOrTheWholeBatchIsRefused() {
        var refused = find(6, CoordinatorType.SHARE, "s1", "s2").data().coordinators();
        assertThat(refused)
                .extracting(c -> Errors.forCode(c.errorCode()))
                .containsExactly(Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.CLUSTER_AUTHORIZATION_FAILED);

        acls.allowOnCluster(AclOperation.CLUSTER_ACTION);
        assertThat(find(6, CoordinatorType.SHARE, "s1")
                        .data()
                        .coordinators()
                        .getFirst()
                        .errorCode())
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
    }

    private Errors initIdempotent() {
        var data = new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(Integer.MAX_VALUE);
        InitProducerIdResponse response = Wire.call(initProducerId, new InitProducerIdRequest.Builder(data), 5);
        return response.error();
    }

    @Test
    void anIdempotentProducerNeedsWriteOnSomeTopicOrIdempotentWriteOnTheCluster() {
        acls.allow(AclResourceType.TOPIC, "orders", AclOperation.READ);
        assertThat(initIdempotent()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED);

        acls.allow(AclResourceType.TOPIC, "orders", AclOperation.WRITE);
        assertThat(initIdempotent()).isEqualTo(Errors.NONE);
    }

    @Test
    void idempotentWriteOnTheClusterAloneAllowsAnIdempotentProducer() {
        acls.allowOnCluster(AclOperation.IDEMPOTENT_WRITE);
        assertThat(initIdempotent()).isEqualTo(Errors.NONE);
    }
}
