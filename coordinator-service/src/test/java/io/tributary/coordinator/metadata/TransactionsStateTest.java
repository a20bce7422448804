package io.tributary.coordinator.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.protocol.CoordinatorNodeIds;
import io.tributary.coordinator.metadata.MetadataCommand.AllocateProducerIds;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTransaction;
import io.tributary.coordinator.metadata.MetadataCommand.StoreTransaction;
import io.tributary.coordinator.transaction.TransactionRecord;
import io.tributary.coordinator.transaction.TransactionState;
import java.util.HexFormat;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Transactional ids in the replicated metadata: the StoreTransaction and DeleteTransaction commands'
 * compare-and-set on the revision, their bytes (TransactionCodec's documented example), snapshots
 * with transactional ids and older snapshots without, and the bound on ids.
 */
class TransactionsStateTest {

    private static final int COORDINATOR = CoordinatorNodeIds.nodeId(0);

    private static TransactionRecord record(
            String id, long revision, long producerId, TransactionState state, Set<TopicPartition> partitions) {
        boolean open = !partitions.isEmpty();
        return new TransactionRecord(
                id,
                revision,
                producerId,
                -1,
                -1,
                (short) 0,
                (short) -1,
                60_000,
                state,
                new TreeSet<>(partitions),
                new TreeSet<>(),
                open ? 1000 : -1,
                2000,
                (byte) 0);
    }

    private static MetadataImage withProducerIds() {
        return MetadataImage.EMPTY.apply(new AllocateProducerIds(COORDINATOR, 100));
    }

    @Test
    void aCoordinatorNodeIdMayAllocateProducerIdsWithoutBeingABroker() {
        MetadataImage image = withProducerIds();
        assertThat(image.nextProducerId()).isEqualTo(100);
        assertThatThrownBy(() -> MetadataImage.EMPTY.apply(new AllocateProducerIds(3, 10)))
                .isInstanceOf(UnknownBrokerException.class);
    }

    @Test
    void storesAreCompareAndSetOnTheRevision() {
        MetadataImage image = withProducerIds();
        TransactionRecord first = record("t", 0, 7, TransactionState.EMPTY, Set.of());
        MetadataImage one = image.apply(new StoreTransaction(first));
        assertThat(one.transactions().get("t")).contains(first);
        assertThat(one.version()).as("brokers do not watch transactions").isEqualTo(image.version());
        assertThat(one.apply(new StoreTransaction(first)))
                .as("a resent command")
                .isSameAs(one);

        TransactionRecord ongoing = record("t", 1, 7, TransactionState.ONGOING, Set.of(new TopicPartition("a", 0)));
        MetadataImage two = one.apply(new StoreTransaction(ongoing));
        assertThat(two.transactions().get("t")).contains(ongoing);

        TransactionRecord stale = record("t", 1, 7, TransactionState.EMPTY, Set.of());
        assertThatThrownBy(() -> two.apply(new StoreTransaction(stale))).isInstanceOf(StaleEpochException.class);
        TransactionRecord skipping = record("t", 3, 7, TransactionState.ONGOING, Set.of(new TopicPartition("a", 1)));
        assertThatThrownBy(() -> two.apply(new StoreTransaction(skipping))).isInstanceOf(StaleEpochException.class);
        TransactionRecord complete = record("t", 2, 7, TransactionState.COMPLETE_COMMIT, Set.of());
        assertThatThrownBy(() -> two.apply(new StoreTransaction(complete)))
                .as("Ongoing cannot complete without being prepared")
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("cannot go from Ongoing to CompleteCommit");
        TransactionRecord notEmpty = record("u", 0, 8, TransactionState.ONGOING, Set.of(new TopicPartition("a", 0)));
        assertThatThrownBy(() -> two.apply(new StoreTransaction(notEmpty))).isInstanceOf(InvalidRequestException.class);

        assertThatThrownBy(() -> two.apply(new DeleteTransaction("t", 0))).isInstanceOf(StaleEpochException.class);
        MetadataImage gone = two.apply(new DeleteTransaction("t", 1));
        assertThat(gone.transactions().count()).isZero();
        assertThat(gone.apply(new DeleteTransaction("t", 1)))
                .as("nothing to delete")
                .isSameAs(gone);
    }

    @Test
    void aRecordHoldsOnlyProducerIdsHandedOutAlready() {
        TransactionRecord r = record("t", 0, 100, TransactionState.EMPTY, Set.of());
        assertThatThrownBy(() -> withProducerIds().apply(new StoreTransaction(r)))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("never handed out");
    }

    @Test
    void theDocumentedBytes() {
        TransactionRecord r = record("t", 1, 7, TransactionState.ONGOING, Set.of(new TopicPartition("a", 0)));
        String expected = "0000000174" + "0000000000000001" + "0000000000000007"
                + "FFFFFFFFFFFFFFFF" + "FFFFFFFFFFFFFFFF" + "00000000" + "FFFFFFFF" + "0000EA60" + "01"
                + "00000001" + "0000000161" + "00000001" + "00000000" + "00000000"
                + "00000000000003E8" + "00000000000007D0" + "00";
        Bytes.Writer w = new Bytes.Writer();
        TransactionCodec.write(w, r);
        assertThat(HexFormat.of().withUpperCase().formatHex(w.toByteArray())).isEqualTo(expected);
        byte[] command = CommandCodec.encode(new StoreTransaction(r));
        assertThat(HexFormat.of().withUpperCase().formatHex(command)).isEqualTo("0A17" + expected);
        assertThat(CommandCodec.decode(command)).isEqualTo(new StoreTransaction(r));
        assertThat(HexFormat.of().formatHex(CommandCodec.encode(new DeleteTransaction("t", 2))))
                .isEqualTo("0a18" + "0000000174" + "0000000000000002");
        assertThat(CommandCodec.decode(CommandCodec.encode(new DeleteTransaction("t", 2))))
                .isEqualTo(new DeleteTransaction("t", 2));
    }

    @Test
    void corruptRecordsAreRejected() {
        TransactionRecord r = record("t", 1, 7, TransactionState.ONGOING, Set.of(new TopicPartition("a", 0)));
        byte[] command = CommandCodec.encode(new StoreTransaction(r));
        int state = 2 + 5 + 8 * 4 + 4 * 3;
        for (int code : new int[] {6, 7, 9}) {
            byte[] bad = command.clone();
            bad[state] = (byte) code;
            assertThatThrownBy(() -> CommandCodec.decode(bad)).isInstanceOf(CorruptCommandException.class);
        }
        byte[] empty = command.clone();
        empty[state] = 0; // Empty with a partition
        assertThatThrownBy(() -> CommandCodec.decode(empty)).isInstanceOf(CorruptCommandException.class);
        byte[] old = command.clone();
        old[0] = 9;
        assertThatThrownBy(() -> CommandCodec.decode(old))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("needs format version 10");
        for (int cut = 1; cut < command.length; cut++) {
            byte[] truncated = java.util.Arrays.copyOf(command, cut);
            assertThatThrownBy(() -> CommandCodec.decode(truncated)).isInstanceOf(CorruptCommandException.class);
        }
    }

    @Test
    void snapshotsKeepTransactionsAndOlderOnesLoadWithout() {
        MetadataImage image = withProducerIds()
                .apply(new StoreTransaction(record("b", 0, 9, TransactionState.EMPTY, Set.of())))
                .apply(new StoreTransaction(record("a", 0, 7, TransactionState.EMPTY, Set.of())))
                .apply(new StoreTransaction(
                        record("a", 1, 7, TransactionState.ONGOING, Set.of(new TopicPartition("x", 3)))));
        byte[] bytes = ImageCodec.encode(image);
        assertThat(ImageCodec.decode(bytes)).isEqualTo(image);
        assertThat(ImageCodec.encode(ImageCodec.decode(bytes))).isEqualTo(bytes);

        MetadataImage without = withProducerIds();
        assertThat(ImageCodec.decode(CodecTest.asVersionNine(ImageCodec.encode(without))))
                .as("a version-9 snapshot has no transactional ids")
                .isEqualTo(without);
    }

    @Test
    void newIdsAreBoundedStoredOnesNever() {
        MetadataLimits limits = new MetadataLimits(1 << 20, 10, 10_000, 10, 10, 10, 10, 10, 10, 10, 10, 1);
        CommandValidator validator = new CommandValidator(limits);
        MetadataImage one = validator.validate(
                withProducerIds(), new StoreTransaction(record("a", 0, 7, TransactionState.EMPTY, Set.of())));
        assertThatThrownBy(() -> validator.validate(
                        one, new StoreTransaction(record("b", 0, 8, TransactionState.EMPTY, Set.of()))))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("the limit is 1");
        SortedSet<TopicPartition> partitions = new TreeSet<>(Set.of(new TopicPartition("x", 0)));
        assertThat(validator
                        .validate(one, new StoreTransaction(record("a", 1, 7, TransactionState.ONGOING, partitions)))
                        .transactions()
                        .get("a"))
                .isPresent();
    }
}
