package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Coordinator node ids never collide with broker ids. */
class CoordinatorNodeIdsTest {

    @Test
    void everyCoordinatorNodeIdIsAboveEveryBrokerId() {
        assertThat(CoordinatorNodeIds.nodeId(0))
                .isEqualTo(1_000_000_000)
                .isGreaterThan(CoordinatorNodeIds.MAX_BROKER_ID);
        assertThat(CoordinatorNodeIds.nodeId(2)).isEqualTo(1_000_000_002);
        assertThat(CoordinatorNodeIds.nodeId(CoordinatorNodeIds.MAX_COORDINATOR_ID))
                .isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aCoordinatorIdOutsideTheRangeIsRefused() {
        assertThatThrownBy(() -> CoordinatorNodeIds.nodeId(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CoordinatorNodeIds.nodeId(CoordinatorNodeIds.MAX_COORDINATOR_ID + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
