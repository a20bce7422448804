package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.junit.jupiter.api.Test;

/**
 * {@link OffsetAccess} through {@link GroupAccess} over a real ACL set ({@link TestAcls}), caller
 * {@code User:alice}: OffsetFetch's group and topic checks and OffsetDelete's topic check, as
 * Kafka's {@code KafkaApis} answers them.
 */
class OffsetAccessTest {

    private final TestAcls acls = TestAcls.alice();
    private final GroupAccess access = new GroupAccess(acls.access, TestImages::cluster);

    private GroupAccess.Split split(AbstractRequest body) {
        return access.split(TestAcls.fromAlice(body));
    }

    private static OffsetFetchRequest fetch(int version, OffsetFetchRequestGroup... groups) {
        return OffsetFetchRequest.Builder.forTopicNames(
                        new OffsetFetchRequestData().setGroups(new ArrayList<>(List.of(groups))), false)
                .build((short) version);
    }

    private static OffsetFetchRequestGroup group(String id, String... topics) {
        var group = new OffsetFetchRequestGroup().setGroupId(id);
        for (String topic : topics) {
            group.topics().add(new OffsetFetchRequestTopics().setName(topic).setPartitionIndexes(List.of(0, 1)));
        }
        return group;
    }

    private static OffsetFetchResponseTopics committed(String topic, long offset) {
        var out = new OffsetFetchResponseTopics().setName(topic);
        out.partitions()
                .add(new OffsetFetchResponsePartitions().setPartitionIndex(0).setCommittedOffset(offset));
        return out;
    }

    private static OffsetFetchResponse coordinator(int version, OffsetFetchResponseGroup... groups) {
        return new OffsetFetchResponse.Builder(List.of(groups)).build((short) version);
    }

    @Test
    void offsetFetchRefusesGroupsWithoutDescribeInTheirPlaceAndTopicsWithoutDescribeAfterTheFetchedOnes() {
        acls.allow(AclResourceType.GROUP, "a", AclOperation.READ) // READ implies DESCRIBE
                .allow(AclResourceType.TOPIC, "orders", AclOperation.READ);
        var split = split(fetch(9, group("b", "orders"), group("a", "orders", "events")));

        var forwarded = ((OffsetFetchRequest) split.forward()).data().groups();
        assertThat(forwarded).extracting(OffsetFetchRequestGroup::groupId).containsExactly("a");
        assertThat(forwarded.getFirst().topics())
                .extracting(OffsetFetchRequestTopics::name)
                .containsExactly("orders");

        var answer = (OffsetFetchResponse) split.answer()
                .apply(coordinator(
                        9,
                        new OffsetFetchResponseGroup()
                                .setGroupId("a")
                                .setTopics(new ArrayList<>(List.of(committed("orders", 5))))));
        var groups = answer.data().groups();
        assertThat(groups)
                .extracting(OffsetFetchResponseGroup::groupId, g -> Errors.forCode(g.errorCode()))
                .containsExactly(tuple("b", Errors.GROUP_AUTHORIZATION_FAILED), tuple("a", Errors.NONE));
        assertThat(groups.get(1).topics())
                .extracting(OffsetFetchResponseTopics::name, t -> t.partitions().size())
                .containsExactly(tuple("orders", 1), tuple("events", 2));
        assertThat(groups.get(1).topics().get(1).partitions()).allSatisfy(p -> {
            assertThat(p.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(p.committedOffset()).isEqualTo(-1);
        });
    }

    @Test
    void offsetFetchOfAllTopicsLeavesOutTheTopicsTheCallerMayNotDescribe() {
        acls.allow(AclResourceType.GROUP, "a", AclOperation.DESCRIBE)
                .allow(AclResourceType.TOPIC, "orders", AclOperation.DESCRIBE);
        var split = split(fetch(9, new OffsetFetchRequestGroup().setGroupId("a").setTopics(null)));
        assertThat(((OffsetFetchRequest) split.forward())
                        .data()
                        .groups()
                        .getFirst()
                        .topics())
                .isNull();

        var answer = (OffsetFetchResponse) split.answer()
                .apply(coordinator(
                        9,
                        new OffsetFetchResponseGroup()
                                .setGroupId("a")
                                .setTopics(new ArrayList<>(List.of(committed("events", 1), committed("orders", 2))))));

        assertThat(answer.data().groups().getFirst().topics())
                .extracting(OffsetFetchResponseTopics::name)
                .containsExactly("orders");
    }

    @Test
    void offsetFetchBeforeV8RefusesTheOneGroupWithTheTopLevelErrorAndForwardsNothing() {
        var split = split(fetch(7, group("a", "orders")));

        assertThat(split.forward()).isNull();
        var answer = (OffsetFetchResponse) split.answer().apply(null);
        assertThat(answer.data().errorCode()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
        assertThat(answer.data().topics()).isEmpty();
    }

    @Test
    void aGroupErrorFromTheCoordinatorDropsTheTopicRefusals() {
        acls.allow(AclResourceType.GROUP, "a", AclOperation.DESCRIBE);
        var split = split(fetch(9, group("a", "events")));
        assertThat(((OffsetFetchRequest) split.forward())
                        .data()
                        .groups()
                        .getFirst()
                        .topics())
                .isEmpty();

        var answer = (OffsetFetchResponse) split.answer()
                .apply(coordinator(
                        9,
                        new OffsetFetchResponseGroup().setGroupId("a").setErrorCode(Errors.STALE_MEMBER_EPOCH.code())));

        assertThat(answer.data().groups().getFirst().errorCode()).isEqualTo(Errors.STALE_MEMBER_EPOCH.code());
        assertThat(answer.data().groups().getFirst().topics()).isEmpty();
    }

    @Test
    void anOffsetFetchTheCallerMayFullyDescribeIsForwardedAsItIs() {
        acls.allow(AclResourceType.GROUP, "a", AclOperation.DESCRIBE)
                .allow(AclResourceType.TOPIC, "orders", AclOperation.DESCRIBE);
        var request = fetch(9, group("a", "orders"));

        assertThat(split(request).forward()).isSameAs(request);
    }

    private static OffsetDeleteRequest offsetDelete(String... topics) {
        var data = new OffsetDeleteRequestData().setGroupId("g");
        for (String topic : topics) {
            var t = new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(topic);
            t.partitions().add(new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0));
            data.topics().add(t);
        }
        return new OffsetDeleteRequest.Builder(data).build((short) 0);
    }

    @Test
    void offsetDeleteNeedsReadNotDeleteOnEachTopicAndRefusesTheOthersFirst() {
        acls.allow(AclResourceType.TOPIC, "orders", AclOperation.READ)
                .allow(AclResourceType.TOPIC, "events", AclOperation.DELETE); // DELETE is not READ
        var split = split(offsetDelete("events", "orders"));
        assertThat(((OffsetDeleteRequest) split.forward()).data().topics())
                .extracting(OffsetDeleteRequestData.OffsetDeleteRequestTopic::name)
                .containsExactly("orders");

        var deleted = new OffsetDeleteResponseData();
        var orders = new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName("orders");
        orders.partitions().add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition().setPartitionIndex(0));
        deleted.topics().add(orders);
        var answer = (OffsetDeleteResponse) split.answer().apply(new OffsetDeleteResponse(deleted));

        assertThat(answer.data().topics())
                .extracting(
                        t -> t.name(),
                        t -> Errors.forCode(t.partitions().iterator().next().errorCode()))
                .containsExactly(tuple("events", Errors.TOPIC_AUTHORIZATION_FAILED), tuple("orders", Errors.NONE));
    }

    @Test
    void offsetDeleteStillAsksTheGroupWhoseErrorIsTheWholeAnswer() {
        var split = split(offsetDelete("events"));
        assertThat(((OffsetDeleteRequest) split.forward()).data().topics()).isEmpty();

        var answer = (OffsetDeleteResponse) split.answer()
                .apply(new OffsetDeleteResponse(
                        new OffsetDeleteResponseData().setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())));

        assertThat(answer.data().errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(answer.data().topics()).isEmpty();
    }
}
