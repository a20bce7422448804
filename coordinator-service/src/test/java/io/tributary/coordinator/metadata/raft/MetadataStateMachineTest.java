package io.tributary.coordinator.metadata.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.CommandCodec;
import io.tributary.coordinator.metadata.CommandValidator;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataCommand;
import io.tributary.coordinator.metadata.MetadataCommand.AllocateProducerIds;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.MetadataLimits;
import io.tributary.coordinator.metadata.TopicExistsException;
import io.tributary.coordinator.metadata.UnknownBrokerException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/** Applying committed entries, without a Raft server: what every voter does with each entry. */
class MetadataStateMachineTest {

    private final MetadataStateMachine stateMachine =
            new MetadataStateMachine(new CommandValidator(MetadataLimits.DEFAULTS));
    private final List<MetadataImage> published = new ArrayList<>();
    private long index;

    MetadataStateMachineTest() {
        stateMachine.addListener(published::add);
    }

    private Reply apply(byte[] logData) {
        LogEntryProto entry = LogEntryProto.newBuilder()
                .setTerm(1)
                .setIndex(index++)
                .setStateMachineLogEntry(
                        StateMachineLogEntryProto.newBuilder().setLogData(ByteString.copyFrom(logData)))
                .build();
        TransactionContext trx = TransactionContext.newBuilder()
                .setStateMachine(stateMachine)
                .setServerRole(RaftPeerRole.FOLLOWER)
                .setLogEntry(entry)
                .build();
        return Reply.decode(
                stateMachine.applyTransaction(trx).join().getContent().toByteArray());
    }

    private Reply apply(MetadataCommand command) {
        return apply(CommandCodec.encode(command));
    }

    @Test
    void aValidEntryAdvancesTheImageAndRepliesWithTheNewVersion() {
        assertThat(apply(Fixtures.register(0, 0, Optional.empty()))).isEqualTo(Reply.applied(1));
        assertThat(apply(new UnfenceBroker(0, Fixtures.incarnation(0, 0)))).isEqualTo(Reply.applied(2));

        assertThat(stateMachine.image().version()).isEqualTo(2);
        assertThat(stateMachine.getLastAppliedTermIndex().getIndex()).isEqualTo(1);
        assertThat(published).extracting(MetadataImage::version).containsExactly(1L, 2L);
    }

    @Test
    void anEntryThatBecameInvalidChangesNothingAndRepliesWithItsTypedError() {
        apply(Fixtures.register(0, 0, Optional.empty()));
        apply(new UnfenceBroker(0, Fixtures.incarnation(0, 0)));
        apply(Fixtures.createTopic("t", List.of(List.of(0))));
        MetadataImage before = stateMachine.image();

        Reply reply = apply(Fixtures.createTopic("t", List.of(List.of(0))));

        assertThat(reply.error()).isInstanceOf(TopicExistsException.class).hasMessageContaining("'t'");
        assertThat(stateMachine.image()).isSameAs(before);
        assertThat(stateMachine.getLastAppliedTermIndex().getIndex())
                .as("the entry is applied, as a no-op")
                .isEqualTo(3);
        assertThat(stateMachine.appliedCommandsSinceStart()).isEqualTo(4);
        assertThat(published).hasSize(3);
    }

    @Test
    void aProducerIdAllocationRepliesWithTheFirstIdOfItsBlock() {
        apply(Fixtures.register(0, 0, Optional.empty()));

        assertThat(apply(new AllocateProducerIds(0, 1000))).isEqualTo(Reply.allocated(2, 0));
        assertThat(apply(new AllocateProducerIds(0, 5))).isEqualTo(Reply.allocated(3, 1000));
        Reply unknown = apply(new AllocateProducerIds(4, 5));

        assertThat(unknown.error()).isInstanceOf(UnknownBrokerException.class);
        assertThat(unknown.firstProducerId()).isEqualTo(Reply.NO_PRODUCER_ID);
        assertThat(stateMachine.image().nextProducerId()).isEqualTo(1005);
        assertThat(published).extracting(MetadataImage::nextProducerId).containsExactly(0L, 1000L, 1005L);
    }

    @Test
    void anEntryThatDoesNotDecodeStopsTheVoterInsteadOfBeingSkipped() {
        assertThatThrownBy(() -> apply(new byte[] {1, 99}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not decode");
        assertThat(stateMachine.image()).isSameAs(MetadataImage.EMPTY);
    }
}
