package io.tributary.systemtests.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Transcript#diff}, the failure message of every multi-broker comparison. */
class TranscriptTest {

    @Test
    void equalTranscriptsShowEveryLineUnchanged() {
        assertThat(Transcript.diff(List.of("a", "b"), List.of("a", "b"))).isEqualTo("  a\n  b\n");
    }

    @Test
    void aChangedLineShowsTheOtherFirstThenTheReference() {
        assertThat(Transcript.diff(
                        List.of("a", "fetch: NONE", "c"), List.of("a", "fetch: NOT_LEADER_OR_FOLLOWER", "c")))
                .isEqualTo("  a\n+ fetch: NOT_LEADER_OR_FOLLOWER\n- fetch: NONE\n  c\n");
    }

    @Test
    void linesOnlyOneSideHasAreMarkedAndTheCommonOnesKept() {
        assertThat(Transcript.diff(List.of("a", "b", "c"), List.of("b", "c", "d")))
                .isEqualTo("- a\n  b\n  c\n+ d\n");
    }

    @Test
    void aScenarioThatStoppedEarlyShowsWhatIsMissing() {
        assertThat(Transcript.diff(List.of("a", "b", "c"), List.of("a", "the scenario itself failed: x")))
                .isEqualTo("  a\n+ the scenario itself failed: x\n- b\n- c\n");
    }
}
