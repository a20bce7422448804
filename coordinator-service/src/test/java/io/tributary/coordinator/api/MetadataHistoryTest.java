package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.coordinator.metadata.Endpoint;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class MetadataHistoryTest {

    private static MetadataImage register(MetadataImage image, int id) {
        MetadataImage registered = image.apply(new MetadataCommand.RegisterBroker(
                id, new UUID(0, id), List.of(new Endpoint("PLAINTEXT", "h", 9092)), Optional.empty(), 0));
        return registered.apply(new MetadataCommand.UnfenceBroker(id, new UUID(0, id)));
    }

    private static MetadataImage create(MetadataImage image, String name) {
        return image.apply(new MetadataCommand.CreateTopics(
                List.of(new MetadataCommand.NewTopic(name, UUID.randomUUID(), List.of(List.of(0)), Map.of()))));
    }

    @Test
    void aDeltaHoldsOnlyWhatChangedAfterTheVersionAndNamesDeletedTopics() throws Exception {
        MetadataHistory history = new MetadataHistory(100);
        MetadataImage image = register(MetadataImage.EMPTY, 0);
        history.observe(image);
        image = create(image, "a");
        history.observe(image);
        long afterA = image.version();
        image = create(image, "b");
        history.observe(image);
        image = image.apply(new MetadataCommand.DeleteTopic("a"));
        history.observe(image);

        MetadataHistory.Changes changes = history.changesSince(afterA, Duration.ZERO);

        assertThat(changes.full()).isFalse();
        assertThat(changes.version()).isEqualTo(image.version());
        assertThat(changes.brokers()).isEmpty();
        assertThat(changes.topics()).extracting(Topic::name).containsExactly("b");
        assertThat(changes.deletedTopics()).containsExactly("a");
    }

    @Test
    void aDeltaCarriesEveryAclWhenOneChangedAndNoneOtherwise() throws Exception {
        MetadataHistory history = new MetadataHistory(100);
        MetadataImage image = register(MetadataImage.EMPTY, 0);
        history.observe(image);
        AclBinding acl = new AclBinding(
                AclResourceType.TOPIC,
                "t",
                AclPatternType.LITERAL,
                "User:u",
                "*",
                AclOperation.READ,
                AclPermission.ALLOW);
        image = image.apply(new MetadataCommand.CreateAcls(List.of(acl)));
        history.observe(image);
        long afterAcl = image.version();
        image = create(image, "a");
        history.observe(image);

        assertThat(history.changesSince(afterAcl - 1, Duration.ZERO).acls())
                .hasValueSatisfying(acls -> assertThat(acls.asSet()).containsExactly(acl));
        assertThat(history.changesSince(afterAcl, Duration.ZERO).acls()).isEmpty();
        assertThat(history.full().acls())
                .hasValueSatisfying(acls -> assertThat(acls.size()).isOne());
    }

    @Test
    void aCallerOlderThanTheHistoryGetsTheFullImage() throws Exception {
        MetadataHistory history = new MetadataHistory(2);
        MetadataImage image = register(MetadataImage.EMPTY, 0);
        history.observe(image);
        for (String name : List.of("a", "b", "c")) {
            image = create(image, name);
            history.observe(image);
        }

        MetadataHistory.Changes changes = history.changesSince(1, Duration.ZERO);

        assertThat(changes.full()).isTrue();
        assertThat(changes.topics()).extracting(Topic::name).containsExactly("a", "b", "c");
        assertThat(changes.brokers()).hasSize(1);
        assertThat(history.changesSince(image.version() - 2, Duration.ZERO).full())
                .isFalse();
    }

    @Test
    void aWaiterParksUntilTheNextVersionAndATimeoutAnswersEmpty() throws Exception {
        MetadataHistory history = new MetadataHistory(10);
        MetadataImage image = register(MetadataImage.EMPTY, 0);
        history.observe(image);
        long version = image.version();

        assertThat(history.changesSince(version, Duration.ofMillis(50)).isEmpty())
                .isTrue();

        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<MetadataHistory.Changes> waiting = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return history.changesSince(version, Duration.ofSeconds(30));
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    pool);
            assertThat(waiting).isNotDone();
            history.observe(create(image, "late"));
            await().atMost(Duration.ofSeconds(5)).until(waiting::isDone);
            assertThat(waiting.get().topics()).extracting(Topic::name).containsExactly("late");
        }
    }

    @Test
    void aCallerOlderThanTheFirstImageSeenGetsTheFullImageSoNoDeletionIsMissed() throws Exception {
        MetadataImage image = create(create(register(MetadataImage.EMPTY, 0), "gone"), "kept");
        long beforeDeletion = image.version();
        image = image.apply(new MetadataCommand.DeleteTopic("gone"));
        MetadataHistory history = new MetadataHistory(10);
        history.observe(image); // as after a restart from a snapshot taken after the deletion
        history.observe(create(image, "new"));

        MetadataHistory.Changes changes = history.changesSince(beforeDeletion, Duration.ZERO);

        assertThat(changes.full()).isTrue();
        assertThat(changes.topics()).extracting(Topic::name).containsExactly("kept", "new");
        assertThat(history.changesSince(image.version(), Duration.ZERO).full()).isFalse();
    }

    @Test
    void anOlderOrEqualImageIsIgnored() throws Exception {
        MetadataHistory history = new MetadataHistory(10);
        MetadataImage one = register(MetadataImage.EMPTY, 0);
        MetadataImage two = create(one, "t");
        history.observe(two);
        history.observe(one);
        assertThat(history.version()).isEqualTo(two.version());
    }
}
