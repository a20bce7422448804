package io.tributary.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TopicNamesTest {

    @ParameterizedTest
    @ValueSource(strings = {"orders", "a", "A-b_c.9", "..."})
    void legalNamesPass(String name) {
        assertThat(TopicNames.requireValid(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "has space", "slash/y", "ümlaut", "colon:x"})
    void namesKafkaRejectsAreInvalidTopicNames(String name) {
        assertThatThrownBy(() -> TopicNames.requireValid(name))
                .isInstanceOfSatisfying(
                        ProblemException.class, e -> assertThat(e.type()).isEqualTo(ProblemType.INVALID_TOPIC_NAME));
    }

    @org.junit.jupiter.api.Test
    void namesLongerThan249CharactersAreInvalid() {
        assertThat(TopicNames.requireValid("x".repeat(249))).hasSize(249);
        assertThatThrownBy(() -> TopicNames.requireValid("x".repeat(250))).isInstanceOf(ProblemException.class);
    }
}
