package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class ApiVersionRangeTest {

    @Test
    void everyVersionKafkaClientsParsesIsAccepted() {
        var range = ApiVersionRange.of(ApiKeys.FETCH, ApiKeys.FETCH.oldestVersion(), ApiKeys.FETCH.latestVersion());

        assertThat(range.minVersion()).isEqualTo(ApiKeys.FETCH.oldestVersion());
        assertThat(range.maxVersion()).isEqualTo(ApiKeys.FETCH.latestVersion());
    }

    @Test
    void versionNewerThanKafkaClientsParsesIsRejected() {
        assertThatThrownBy(() -> ApiVersionRange.of(ApiKeys.FETCH, 4, ApiKeys.FETCH.latestVersion() + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside what kafka-clients parses");
    }

    @Test
    void versionOlderThanKafkaClientsParsesIsRejected() {
        assertThat(ApiKeys.PRODUCE.oldestVersion()).isPositive();

        assertThatThrownBy(() -> ApiVersionRange.of(ApiKeys.PRODUCE, ApiKeys.PRODUCE.oldestVersion() - 1, 9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside what kafka-clients parses");
    }

    @Test
    void minimumAboveMaximumIsRejected() {
        assertThatThrownBy(() -> ApiVersionRange.of(ApiKeys.METADATA, 5, 4))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rangeContainsItsBoundsAndNothingOutsideThem() {
        var range = ApiVersionRange.of(ApiKeys.METADATA, 4, 9);

        assertThat(range.contains((short) 3)).isFalse();
        assertThat(range.contains((short) 4)).isTrue();
        assertThat(range.contains((short) 9)).isTrue();
        assertThat(range.contains((short) 10)).isFalse();
    }
}
