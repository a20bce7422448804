package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.group.ConsumerMigrationPolicy;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.GroupDescription;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.HeartbeatRequest;
import io.tributary.coordinator.group.HeartbeatResponse;
import io.tributary.coordinator.group.InMemoryConsumerGroupStore;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.OffsetStore.OffsetStoreException;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
import io.tributary.coordinator.group.streams.StreamsGroupConfig;
import io.tributary.coordinator.group.streams.StreamsGroupCoordinator;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class GroupServiceTest {

    private final FakeTopics topics = new FakeTopics();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final AtomicLong term = new AtomicLong(1);
    private final InMemoryConsumerGroupStore consumerStore = new InMemoryConsumerGroupStore();
    private final GroupService service = new GroupService(
            new GroupCoordinator(GroupConfig.DEFAULTS, topics),
            new ClassicGroupCoordinator(ClassicGroupConfig.DEFAULTS, UUID::randomUUID),
            new StreamsGroupCoordinator(GroupConfig.DEFAULTS, StreamsGroupConfig.DEFAULTS, topics),
            new InMemoryOffsetStore(),
            new InMemoryClassicGroupStore(),
            consumerStore,
            topics -> {},
            topics,
            leader::get,
            term::get,
            InstantSource.fixed(Instant.parse("2027-01-01T00:00:00Z")),
            ConsumerMigrationPolicy.BIDIRECTIONAL);

    private static HeartbeatRequest join(String member, List<String> topics) {
        return new HeartbeatRequest(
                "g",
                member,
                0,
                Optional.empty(),
                Optional.empty(),
                1000,
                Optional.of(topics),
                Optional.empty(),
                Optional.empty(),
                Optional.of(new TreeSet<>()),
                "c",
                "h");
    }

    private HeartbeatResponse join() {
        topics.create("t", 1);
        service.requireLeader();
        return service.heartbeatConsumer(join("m", List.of("t")));
    }

    private GroupDescription.Member member(String memberId) {
        return service.groups().describe("g").orElseThrow().members().stream()
                .filter(m -> m.memberId().equals(memberId))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aNewTermLoadsTheGroupsFromTheStoreAndMembersKeepTheirEpochs() {
        HeartbeatResponse joined = join();
        assertThat(consumerStore.load()).containsKey("g");

        term.set(2);
        service.requireLeader();

        assertThat(member("m").memberEpoch()).isEqualTo(joined.memberEpoch());
        assertThat(member("m").assigned()).isEqualTo(joined.assignment().orElseThrow());
    }

    @Test
    void aHeartbeatWhoseChangeWasNotStoredIsAnsweredWithTheStoreErrorAndNothingOfItIsKept() {
        HeartbeatResponse joined = join();
        topics.create("u", 1);
        consumerStore.failNext(OffsetStoreException.Reason.UNAVAILABLE);

        assertThatThrownBy(() -> service.heartbeatConsumer(join("m", List.of("t", "u"))))
                .isInstanceOfSatisfying(
                        GroupException.class, e -> assertThat(e.error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE));

        service.requireLeader();
        assertThat(member("m").memberEpoch())
                .as("loaded again from the store: the subscription change never happened")
                .isEqualTo(joined.memberEpoch());
        assertThat(member("m").subscribedTopicNames()).containsExactly("t");
        consumerStore.failNext(OffsetStoreException.Reason.NOT_LEADER);
        assertThatThrownBy(() -> service.heartbeatConsumer(join("n", List.of("t"))))
                .isInstanceOfSatisfying(
                        GroupException.class, e -> assertThat(e.error()).isEqualTo(Errors.NOT_COORDINATOR));
        consumerStore.failNext(OffsetStoreException.Reason.LIMIT_EXCEEDED);
        assertThatThrownBy(() -> service.heartbeatConsumer(join("n", List.of("t"))))
                .isInstanceOfSatisfying(
                        GroupException.class, e -> assertThat(e.error()).isEqualTo(Errors.UNKNOWN_SERVER_ERROR));
        service.requireLeader();
        assertThat(service.groups().describe("g").orElseThrow().members())
                .extracting(GroupDescription.Member::memberId)
                .containsExactly("m");
    }

    @Test
    void aFollowerRefusesAndForgetsAndItsTickForgetsToo() {
        join();
        leader.set(false);

        service.tick();
        assertThat(service.groups().contains("g")).isFalse();
        assertThatThrownBy(service::requireLeader)
                .isInstanceOfSatisfying(
                        GroupException.class, e -> assertThat(e.error()).isEqualTo(Errors.NOT_COORDINATOR));
    }
}
