package io.tributary.broker.log.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionIndexTest {

    private static final Uuid TOPIC = new Uuid(0x0102030405060708L, 0x090a0b0c0d0e0f10L);

    @TempDir
    Path dir;

    private IndexStore store;

    @BeforeEach
    void open() {
        store = IndexStore.open(dir.resolve("index"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void offsetKeyIsTopicIdPartitionOffsetBigEndian() {
        PartitionIndex index = store.partition(TOPIC, 3);

        assertThat(HexFormat.of().formatHex(index.offsetKey(0x1122334455667788L)))
                .isEqualTo("0102030405060708" + "090a0b0c0d0e0f10" + "00000003" + "1122334455667788");
    }

    @Test
    void timeKeyFlipsTheSignBitSoNegativeTimestampsSortFirst() {
        PartitionIndex index = store.partition(TOPIC, 0);

        assertThat(HexFormat.of().formatHex(index.timeKey(1L))).endsWith("8000000000000001");
        assertThat(HexFormat.of().formatHex(index.timeKey(-1L))).endsWith("7fffffffffffffff");
        index.putTime(new TimestampOffset(-1, 0));
        index.putTime(new TimestampOffset(5, 3));

        assertThat(index.floorTime(0)).contains(new TimestampOffset(-1, 0));
        assertThat(index.floorTime(4)).contains(new TimestampOffset(-1, 0));
        assertThat(index.floorTime(5)).contains(new TimestampOffset(5, 3));
        assertThat(index.lastTime()).contains(new TimestampOffset(5, 3));
    }

    @Test
    void floorLookupStaysInsideItsPartition() {
        PartitionIndex p0 = store.partition(TOPIC, 0);
        PartitionIndex p1 = store.partition(TOPIC, 1);
        PartitionIndex p2 = store.partition(TOPIC, 2);
        p0.putOffset(new OffsetPosition(5, 0, 100));
        p2.putOffset(new OffsetPosition(1, 0, 0));

        assertThat(p1.floorOffset(Long.MAX_VALUE)).isEmpty();
        assertThat(p2.floorOffset(0)).isEmpty();
        assertThat(p0.floorOffset(4)).isEmpty();
        assertThat(p0.floorOffset(5)).contains(new OffsetPosition(5, 0, 100));
        assertThat(p0.floorOffset(Long.MAX_VALUE)).contains(new OffsetPosition(5, 0, 100));
    }

    @Test
    void deleteOffsetsFromAndBeforeRemoveThoseEntriesOnly() {
        PartitionIndex index = store.partition(TOPIC, 0);
        for (long offset = 0; offset < 10; offset++) {
            index.putOffset(new OffsetPosition(offset, 0, (int) offset * 10));
        }
        store.partition(TOPIC, 1).putOffset(new OffsetPosition(0, 0, 0));

        index.deleteOffsetsFrom(7);
        index.deleteOffsetsBefore(2);

        assertThat(index.offsetEntries()).extracting(OffsetPosition::offset).containsExactly(2L, 3L, 4L, 5L, 6L);
        assertThat(store.partition(TOPIC, 1).offsetEntries()).hasSize(1);
    }

    @Test
    void deleteTimesRemovesByOffsetFromEitherEnd() {
        PartitionIndex index = store.partition(TOPIC, 0);
        for (int i = 0; i < 6; i++) {
            index.putTime(new TimestampOffset(100 + i, i * 10));
        }

        index.deleteTimesFrom(40);
        index.deleteTimesBefore(10);

        assertThat(index.timeEntries())
                .containsExactly(
                        new TimestampOffset(101, 10), new TimestampOffset(102, 20), new TimestampOffset(103, 30));
    }

    @Test
    void partitionStateRoundTripsThroughRocksDb() {
        PartitionIndex index = store.partition(TOPIC, 0);
        PartitionState state = new PartitionState(
                5, 17, PartitionState.Shutdown.CLEAN, List.of(new EpochEntry(0, 5), new EpochEntry(3, 12)));

        index.writeState(state, Durability.SYNC);

        assertThat(index.readState()).contains(state);
        assertThat(store.partition(TOPIC, 1).readState()).isEmpty();
    }

    @Test
    void partitionStateEncodingIsVersionedAndFixedLayout() {
        PartitionState state = new PartitionState(
                0x0102030405060708L, 0x1112131415161718L, PartitionState.Shutdown.CLEAN, List.of(new EpochEntry(7, 9)));

        assertThat(HexFormat.of().formatHex(state.encode()))
                .isEqualTo("01" + "0102030405060708" + "1112131415161718" + "01" + "00000001" + "00000007"
                        + "0000000000000009");
        assertThat(PartitionState.decode(state.encode())).isEqualTo(state);
    }

    @Test
    void partitionStateDecodingRejectsAnotherVersion() {
        byte[] bytes = new PartitionState(0, 0, PartitionState.Shutdown.UNCLEAN, List.of()).encode();
        bytes[0] = 2;

        assertThatThrownBy(() -> PartitionState.decode(bytes)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void stateSurvivesReopeningTheStore() {
        PartitionState state = new PartitionState(1, 2, PartitionState.Shutdown.UNCLEAN, List.of());
        store.partition(TOPIC, 0).writeState(state, Durability.NO_SYNC);
        store.partition(TOPIC, 0).putOffset(new OffsetPosition(3, 0, 0));
        store.flushIndex();
        store.close();

        store = IndexStore.open(dir.resolve("index"));

        assertThat(store.partition(TOPIC, 0).readState()).contains(state);
        assertThat(store.partition(TOPIC, 0).floorOffset(3)).contains(new OffsetPosition(3, 0, 0));
    }

    @Test
    void flushIndexWritesMemtablesOnlyWhenSomethingWasWrittenSince() {
        PartitionIndex index = store.partition(TOPIC, 0);
        index.putOffset(new OffsetPosition(1, 0, 0));
        store.flushIndex();
        long files = store.offsetIndexLevel0Files();

        store.flushIndex();
        assertThat(store.offsetIndexLevel0Files()).isEqualTo(files);

        index.putOffset(new OffsetPosition(2, 0, 10));
        store.flushIndex();
        assertThat(store.offsetIndexLevel0Files()).isEqualTo(files + 1);
    }

    @Test
    void deleteAllRemovesEveryEntryOfThePartition() {
        PartitionIndex index = store.partition(TOPIC, 0);
        index.putOffset(new OffsetPosition(3, 0, 0));
        index.putTime(new TimestampOffset(3, 3));
        index.writeState(new PartitionState(0, 0, PartitionState.Shutdown.CLEAN, List.of()), Durability.SYNC);

        index.deleteAll();

        assertThat(index.offsetEntries()).isEmpty();
        assertThat(index.timeEntries()).isEmpty();
        assertThat(index.readState()).isEmpty();
    }

    @Test
    void entriesAreBufferedUntilTheBoundThenWrittenTogetherAndFoundThroughout() {
        store.close();
        store = IndexStore.open(dir.resolve("index"), 3);
        PartitionIndex index = store.partition(TOPIC, 0);
        assertThat(store.partition(TOPIC, 0)).as("one view per partition").isSameAs(index);

        index.putOffset(new OffsetPosition(10, 0, 0));
        index.putTime(new TimestampOffset(100, 10));
        assertThat(index.bufferedEntries()).isEqualTo(2);
        assertThat(index.floorOffset(15)).contains(new OffsetPosition(10, 0, 0));
        assertThat(index.lastTime()).contains(new TimestampOffset(100, 10));

        index.putOffset(new OffsetPosition(20, 0, 500));
        assertThat(index.bufferedEntries())
                .as("the third entry writes all three")
                .isZero();
        index.putOffset(new OffsetPosition(30, 0, 900));
        assertThat(index.bufferedEntries()).isEqualTo(1);

        assertThat(index.floorOffset(25)).contains(new OffsetPosition(20, 0, 500));
        assertThat(index.floorOffset(35))
                .as("buffered, above the written ones")
                .contains(new OffsetPosition(30, 0, 900));
        assertThat(index.offsetEntries())
                .containsExactly(
                        new OffsetPosition(10, 0, 0), new OffsetPosition(20, 0, 500), new OffsetPosition(30, 0, 900));

        index.deleteOffsetsFrom(20);
        assertThat(index.offsetEntries()).containsExactly(new OffsetPosition(10, 0, 0));
        assertThat(index.bufferedEntries()).isZero();
    }

    @Test
    void flushIndexAndCloseWriteEveryPartitionsBufferedEntries() {
        PartitionIndex first = store.partition(TOPIC, 0);
        PartitionIndex second = store.partition(TOPIC, 1);
        first.putOffset(new OffsetPosition(1, 0, 0));
        second.putTime(new TimestampOffset(5, 2));
        store.flushIndex();
        assertThat(first.bufferedEntries()).isZero();
        assertThat(second.bufferedEntries()).isZero();

        second.putOffset(new OffsetPosition(2, 0, 64));
        assertThat(second.bufferedEntries()).isEqualTo(1);
        store.close();
        store = IndexStore.open(dir.resolve("index"));

        assertThat(store.partition(TOPIC, 0).offsetEntries()).containsExactly(new OffsetPosition(1, 0, 0));
        assertThat(store.partition(TOPIC, 1).offsetEntries()).containsExactly(new OffsetPosition(2, 0, 64));
        assertThat(store.partition(TOPIC, 1).timeEntries()).containsExactly(new TimestampOffset(5, 2));
    }

    @Test
    void aBufferOfLessThanOneEntryIsRefused() {
        assertThatThrownBy(() -> IndexStore.open(dir.resolve("other"), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }
}
