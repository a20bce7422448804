package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.GroupException;
import io.tributary.coordinator.group.HeartbeatRequest;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
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
    private final GroupService service = new GroupService(
            new GroupCoordinator(GroupConfig.DEFAULTS, topics),
            new ClassicGroupCoordinator(ClassicGroupConfig.DEFAULTS, UUID::randomUUID),
            new InMemoryOffsetStore(),
            new InMemoryClassicGroupStore(),
            topics,
            leader::get,
            term::get,
            InstantSource.fixed(Instant.parse("2027-01-01T00:00:00Z")));

    private void join() {
        topics.create("t", 1);
        service.requireLeader();
        service.groups()
                .heartbeat(
                        new HeartbeatRequest(
                                "g",
                                "m",
                                0,
                                Optional.empty(),
                                Optional.empty(),
                                1000,
                                Optional.of(List.of("t")),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.of(new TreeSet<>()),
                                "c",
                                "h"),
                        service.nowMs());
    }

    @Test
    void aNewTermDropsTheMembershipOfThePreviousOne() {
        join();
        service.requireLeader();
        assertThat(service.groups().contains("g")).as("same term: kept").isTrue();

        term.set(2);
        service.requireLeader();

        assertThat(service.groups().contains("g")).isFalse();
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
