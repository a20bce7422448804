package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.junit.jupiter.api.Test;

/**
 * {@link RequestAuthorizer} over a real {@link AclAuthorizer}: each whole-request check of {@link
 * io.tributary.common.security.acl.ApiAccess} refuses with Kafka's error and lets an allowed caller
 * through to the handler.
 */
class RequestAuthorizerTest {

    private static final KafkaPrincipal ALICE = KafkaPrincipal.user("alice");
    private static final KafkaPrincipal ADMIN = KafkaPrincipal.user("admin");
    private static final AclAuthorizer.Settings SETTINGS = new AclAuthorizer.Settings(Set.of(ADMIN), false);

    private final AtomicReference<AclAuthorizer> acls = new AtomicReference<>(AclAuthorizer.empty(SETTINGS));
    private final RequestAuthorizer authorizer = new RequestAuthorizer(AccessControl.of(acls::get));
    private final List<ApiKeys> handled = new ArrayList<>();

    private void allow(AclResourceType type, String name, AclOperation operation) {
        List<AclBinding> bindings = new ArrayList<>(List.of(new AclBinding(
                type,
                name,
                AclPatternType.LITERAL,
                "User:alice",
                AclBinding.ANY_HOST,
                operation,
                AclPermission.ALLOW)));
        acls.set(AclAuthorizer.of(bindings, SETTINGS));
    }

    /** The answer to {@code body} from {@code who}: the handler's (an empty one, recorded) or the refusal. */
    private AbstractResponse send(AbstractRequest body, KafkaPrincipal who) {
        ApiKeys api = body.apiKey();
        RequestHandler handler = new RequestHandler() {
            @Override
            public ApiVersionRange versions() {
                return ApiVersionRange.of(api, api.oldestVersion(), api.latestVersion());
            }

            @Override
            public AbstractResponse handle(KafkaRequest request) {
                handled.add(api);
                // an answer no refusal gives, to tell the two apart
                return request.body().getErrorResponse(0, Errors.COORDINATOR_NOT_AVAILABLE.exception());
            }
        };
        RequestHandler guarded = authorizer.guard(List.of(handler)).getFirst();
        assertThat(guarded.versions()).isEqualTo(handler.versions());
        var header = new RequestHeader(api, body.version(), "client", 7);
        var connection = new ConnectionInfo("c1", new InetSocketAddress("10.0.0.7", 40000), "external", who);
        return guarded.handle(new KafkaRequest(header, body, connection));
    }

    private static JoinGroupRequest join() {
        return new JoinGroupRequest.Builder(new JoinGroupRequestData()
                        .setGroupId("orders-app")
                        .setMemberId("")
                        .setProtocolType("consumer")
                        .setSessionTimeoutMs(10_000)
                        .setRebalanceTimeoutMs(10_000))
                .build((short) 9);
    }

    @Test
    void withoutAnAuthorizerEveryRequestPasses() {
        var open = new RequestAuthorizer(AccessControl.OPEN);
        var header = new RequestHeader(ApiKeys.JOIN_GROUP, (short) 9, "client", 7);
        var connection = new ConnectionInfo("c1", new InetSocketAddress("10.0.0.7", 40000), "external", ALICE);

        assertThat(open.refusal(new KafkaRequest(header, join(), connection))).isEmpty();
    }

    @Test
    void aGroupRequestNeedsReadOnItsGroup() {
        AbstractResponse refused = send(join(), ALICE);
        assertThat(refused.errorCounts()).isEqualTo(Map.of(Errors.GROUP_AUTHORIZATION_FAILED, 1));
        assertThat(handled).isEmpty();

        allow(AclResourceType.GROUP, "orders-app", AclOperation.READ);
        assertThat(send(join(), ALICE).errorCounts()).doesNotContainKey(Errors.GROUP_AUTHORIZATION_FAILED);
        allow(AclResourceType.GROUP, "other-app", AclOperation.READ);
        assertThat(send(join(), ALICE).errorCounts()).containsKey(Errors.GROUP_AUTHORIZATION_FAILED);
        assertThat(send(join(), ADMIN).errorCounts()).doesNotContainKey(Errors.GROUP_AUTHORIZATION_FAILED);
        assertThat(handled).containsExactly(ApiKeys.JOIN_GROUP, ApiKeys.JOIN_GROUP);
    }

    @Test
    void aRefusedOffsetCommitAnswersTheGroupErrorOnEveryPartition() {
        var data = new OffsetCommitRequestData().setGroupId("g").setGenerationIdOrMemberEpoch(1);
        data.topics()
                .add(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName("t")
                        .setPartitions(List.of(
                                new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0),
                                new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(1))));
        AbstractResponse refused =
                send(OffsetCommitRequest.Builder.forTopicNames(data).build((short) 8), ALICE);

        assertThat(refused.errorCounts()).isEqualTo(Map.of(Errors.GROUP_AUTHORIZATION_FAILED, 2));
        assertThat(handled).isEmpty();
    }

    @Test
    void aClusterOperationNeedsItsPermissionOnTheCluster() {
        var data = new CreateAclsRequestData();
        data.creations()
                .add(new CreateAclsRequestData.AclCreation()
                        .setResourceType(AclResourceType.TOPIC.code())
                        .setResourceName("t")
                        .setResourcePatternType(AclPatternType.LITERAL.code())
                        .setPrincipal("User:bob")
                        .setHost("*")
                        .setOperation(AclOperation.READ.code())
                        .setPermissionType(AclPermission.ALLOW.code()));
        CreateAclsRequest request = new CreateAclsRequest.Builder(data).build((short) 3);
        assertThat(send(request, ALICE).errorCounts()).isEqualTo(Map.of(Errors.CLUSTER_AUTHORIZATION_FAILED, 1));

        allow(AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME, AclOperation.ALTER);
        send(request, ALICE);
        assertThat(handled).containsExactly(ApiKeys.CREATE_ACLS);
    }

    @Test
    void writeTxnMarkersTakesAlterOrElseClusterAction() {
        var data = new WriteTxnMarkersRequestData();
        data.markers()
                .add(new WriteTxnMarkersRequestData.WritableTxnMarker()
                        .setProducerId(5)
                        .setTransactionResult(true)
                        .setTopics(List.of(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                                .setName("t")
                                .setPartitionIndexes(List.of(0)))));
        WriteTxnMarkersRequest request = new WriteTxnMarkersRequest.Builder(data).build((short) 1);
        assertThat(send(request, ALICE).errorCounts()).containsKey(Errors.CLUSTER_AUTHORIZATION_FAILED);

        allow(AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME, AclOperation.ALTER);
        send(request, ALICE);
        allow(AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME, AclOperation.CLUSTER_ACTION);
        send(request, ALICE);
        assertThat(handled).containsExactly(ApiKeys.WRITE_TXN_MARKERS, ApiKeys.WRITE_TXN_MARKERS);
    }

    @Test
    void theTransactionalIdIsCheckedBeforeTheGroup() {
        AddOffsetsToTxnRequest request = new AddOffsetsToTxnRequest.Builder(new AddOffsetsToTxnRequestData()
                        .setTransactionalId("tx-1")
                        .setGroupId("g")
                        .setProducerId(5)
                        .setProducerEpoch((short) 0))
                .build((short) 3);
        assertThat(send(request, ALICE).errorCounts())
                .isEqualTo(Map.of(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, 1));

        allow(AclResourceType.TRANSACTIONAL_ID, "tx-1", AclOperation.WRITE);
        assertThat(send(request, ALICE).errorCounts()).isEqualTo(Map.of(Errors.GROUP_AUTHORIZATION_FAILED, 1));
        assertThat(handled).isEmpty();
    }

    @Test
    void aSyncGroupWithoutItsProtocolIsLeftToTheHandlersInconsistentProtocolAnswer() {
        SyncGroupRequest withoutProtocol = new SyncGroupRequest.Builder(new SyncGroupRequestData()
                        .setGroupId("g")
                        .setMemberId("m")
                        .setGenerationId(1))
                .build((short) 5);
        send(withoutProtocol, ALICE);
        SyncGroupRequest withProtocol = new SyncGroupRequest.Builder(new SyncGroupRequestData()
                        .setGroupId("g")
                        .setMemberId("m")
                        .setGenerationId(1)
                        .setProtocolType("consumer")
                        .setProtocolName("range"))
                .build((short) 5);

        assertThat(send(withProtocol, ALICE).errorCounts()).isEqualTo(Map.of(Errors.GROUP_AUTHORIZATION_FAILED, 1));
        assertThat(handled).containsExactly(ApiKeys.SYNC_GROUP);
    }
}
