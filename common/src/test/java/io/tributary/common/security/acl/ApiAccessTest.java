package io.tributary.common.security.acl;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.acl.ApiAccess.Check;
import io.tributary.common.security.acl.ApiAccess.Placement;
import io.tributary.common.security.acl.ApiAccess.Target;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class ApiAccessTest {

    /**
     * Kafka broker APIs the table leaves out: share groups, Raft voter changes
     * and the newest trunk-only ones, none of which Tributary serves or plans to serve soon. A new
     * API in kafka-clients fails this test until it gets a rule or a place here.
     */
    private static final Set<ApiKeys> NOT_IN_TABLE = EnumSet.of(
            ApiKeys.SHARE_GROUP_HEARTBEAT,
            ApiKeys.SHARE_GROUP_DESCRIBE,
            ApiKeys.SHARE_FETCH,
            ApiKeys.SHARE_ACKNOWLEDGE,
            ApiKeys.ADD_RAFT_VOTER,
            ApiKeys.REMOVE_RAFT_VOTER,
            ApiKeys.INITIALIZE_SHARE_GROUP_STATE,
            ApiKeys.READ_SHARE_GROUP_STATE,
            ApiKeys.WRITE_SHARE_GROUP_STATE,
            ApiKeys.DELETE_SHARE_GROUP_STATE,
            ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY,
            ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS,
            ApiKeys.ALTER_SHARE_GROUP_OFFSETS,
            ApiKeys.DELETE_SHARE_GROUP_OFFSETS,
            ApiKeys.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE,
            ApiKeys.UNREGISTER_CONTROLLER);

    @Test
    void everyBrokerApiOfKafkaClientsHasARuleOrIsNamedAsLeftOut() {
        Set<ApiKeys> brokerApis = EnumSet.noneOf(ApiKeys.class);
        for (ApiKeys api : ApiKeys.values()) {
            if (api.messageType.listeners().contains(ApiMessageType.ListenerType.BROKER)) {
                brokerApis.add(api);
            }
        }
        Set<ApiKeys> missing = brokerApis.stream()
                .filter(api -> ApiAccess.of(api).isEmpty())
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(ApiKeys.class)));

        assertThat(missing).isEqualTo(NOT_IN_TABLE);
    }

    @Test
    void everyCheckNamesAnOperationItsResourceTypeSupports() {
        for (var rule : ApiAccess.all().values()) {
            for (Check check : rule.checks()) {
                if (check.target() == Target.EACH_CONFIG_RESOURCE || check.placement() == Placement.SUFFICIENT) {
                    // a config resource's type is its own; a probe may name what no ACL tool grants on
                    // the resource (DeleteTopics probes DELETE on the cluster: ALL or a super user)
                    continue;
                }
                assertThat(check.type().supportedOperations())
                        .as("%s: %s on %s", rule.api(), check.operation(), check.type())
                        .contains(check.operation());
            }
        }
    }

    @Test
    void requestWideRefusalsNameTheRequestsOwnResourceAndAnAuthorizationError() {
        for (var rule : ApiAccess.all().values()) {
            for (Check check : rule.checks()) {
                if (check.placement() == Placement.WHOLE) {
                    assertThat(check.target())
                            .as("%s", rule.api())
                            .isIn(Target.CLUSTER, Target.REQUEST_GROUP, Target.REQUEST_TRANSACTIONAL_ID);
                }
                if (check.placement() == Placement.WHOLE || check.placement() == Placement.PER_ITEM) {
                    assertThat(check.denied().name()).as("%s", rule.api()).endsWith("_AUTHORIZATION_FAILED");
                }
                if (check.placement() == Placement.SUFFICIENT) {
                    assertThat(check.target()).as("%s", rule.api()).isEqualTo(Target.CLUSTER);
                }
            }
        }
    }

    @Test
    void versionLimitedChecksSplitAddPartitionsToTxnBetweenClientsAndBrokers() {
        var checks = ApiAccess.of(ApiKeys.ADD_PARTITIONS_TO_TXN).orElseThrow().checks();

        assertThat(checks.stream().filter(c -> c.appliesTo((short) 3)).map(Check::operation))
                .containsExactly(AclOperation.WRITE, AclOperation.WRITE);
        assertThat(checks.stream().filter(c -> c.appliesTo((short) 4)).map(Check::operation))
                .containsExactly(AclOperation.CLUSTER_ACTION);
    }
}
