package io.tributary.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BackgroundFailuresTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final BackgroundFailures background = new BackgroundFailures();

    @Test
    void aTaskThatThrowsFailsTheCheckWithItsExceptionAsTheCause() throws Exception {
        var boom = new IllegalStateException("producer died after 3 records");
        background
                .start("producer", task -> {
                    throw boom;
                })
                .join(PATIENCE);

        assertThatThrownBy(background::check)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 background failure")
                .hasMessageContaining(
                        "producer: failed: java.lang.IllegalStateException: producer died after 3 records")
                .cause()
                .isInstanceOf(BackgroundFailures.Failure.class)
                .hasCause(boom);
        assertThat(background.failures())
                .singleElement()
                .extracting(BackgroundFailures.Failure::source)
                .isEqualTo("producer");
    }

    @Test
    void everyFailureIsAttachedTheFirstAsCauseTheOthersSuppressed() throws Exception {
        background
                .start("first", task -> {
                    throw new IllegalStateException("one");
                })
                .join(PATIENCE);
        background
                .start("second", task -> {
                    throw new AssertionError("two");
                })
                .join(PATIENCE);
        background.report("callback", new IllegalArgumentException("three"));

        assertThatThrownBy(background::check)
                .hasMessageContaining("3 background failures")
                .hasMessageContaining("first: failed: java.lang.IllegalStateException: one")
                .hasMessageContaining("second: failed: java.lang.AssertionError: two")
                .hasMessageContaining("callback: java.lang.IllegalArgumentException: three")
                .satisfies(e -> {
                    assertThat(e.getCause()).hasMessageStartingWith("first:");
                    assertThat(e.getSuppressed())
                            .extracting(Throwable::getMessage)
                            .containsExactly(
                                    "second: failed: java.lang.AssertionError: two",
                                    "callback: java.lang.IllegalArgumentException: three");
                    assertThat(e.getSuppressed()[0].getCause().getStackTrace())
                            .as("the failure's own stack is kept")
                            .isNotEmpty();
                });
        assertThatThrownBy(background::check).as("a failure stays").isInstanceOf(AssertionError.class);
    }

    @Test
    void tasksThatEndNormallyPassTheCheck() throws Exception {
        var done = new AtomicInteger();
        background.start("writer", task -> done.incrementAndGet()).join(PATIENCE);

        assertThat(done).hasValue(1);
        assertThatCode(background::check).doesNotThrowAnyException();
    }

    @Test
    void aTaskMeantToRunUntilStoppedFailsWhenItEndsByItself() throws Exception {
        background.startUntilStopped("consumer", task -> {}).join(PATIENCE);

        assertThatThrownBy(background::check).hasMessageContaining("consumer: ended before the test stopped it");
    }

    @Test
    void aTaskStoppedByTheTestEndsWithoutFailure() throws Exception {
        var loops = new AtomicInteger();
        var running = new CountDownLatch(1);
        var task = background.startUntilStopped("consumer", t -> {
            while (!t.stopRequested()) {
                loops.incrementAndGet();
                running.countDown();
                Thread.onSpinWait();
            }
        });
        running.await();

        task.stop(PATIENCE);

        assertThat(task.isAlive()).isFalse();
        assertThat(loops.get()).isPositive();
        assertThatCode(background::check).doesNotThrowAnyException();
    }

    @Test
    void anInterruptionIsNoFailureWhenTheTestStoppedTheTask() throws Exception {
        var blocked = new CountDownLatch(1);
        var task = background.startUntilStopped("producer", t -> {
            blocked.countDown();
            new CountDownLatch(1).await();
        });
        blocked.await();

        task.stopNow(PATIENCE);

        assertThat(task.isAlive()).isFalse();
        assertThatCode(background::check).doesNotThrowAnyException();
    }

    @Test
    void anInterruptionIsAFailureWhenTheTestDidNotStopTheTask() throws Exception {
        background
                .start("producer", task -> {
                    throw new InterruptedException("interrupted by something else");
                })
                .join(PATIENCE);
        background
                .start("client", task -> {
                    throw new IllegalStateException(
                            "a client's wrapper", new java.nio.channels.ClosedByInterruptException());
                })
                .join(PATIENCE);

        assertThatThrownBy(background::check)
                .hasMessageContaining("producer: failed: java.lang.InterruptedException")
                .hasMessageContaining("client: failed: java.lang.IllegalStateException");
    }

    @Test
    void aStoppedTaskThatThrowsSomethingElseStillFails() throws Exception {
        var blocked = new CountDownLatch(1);
        var task = background.startUntilStopped("reader", t -> {
            blocked.countDown();
            while (!t.stopRequested()) {
                Thread.onSpinWait();
            }
            throw new IllegalStateException("a malformed frame");
        });
        blocked.await();

        task.stop(PATIENCE);

        assertThatThrownBy(background::check).hasMessageContaining("reader: failed: java.lang.IllegalStateException");
    }

    @Test
    void aTaskThatDoesNotStopInTimeIsAFailureWithItsStack() throws Exception {
        var release = new CountDownLatch(1);
        var blocked = new CountDownLatch(1);
        var task = background.startUntilStopped("stuck", t -> {
            blocked.countDown();
            while (release.getCount() > 0) {
                try {
                    release.await();
                } catch (InterruptedException ignored) {
                    // deaf to interrupts, as a stuck client can be
                }
            }
        });
        blocked.await();

        task.stop(Duration.ofMillis(50));
        release.countDown();
        task.join(PATIENCE);

        assertThat(background.failures()).singleElement().satisfies(f -> {
            assertThat(f).hasMessageContaining("stuck: still running PT0.05S after being asked to stop");
            assertThat(f.getCause().getStackTrace()).as("where the task was").isNotEmpty();
        });
    }

    @Test
    void asAnExtensionItStopsWhatIsLeftAndChecksAfterEachTest() throws Exception {
        var blocked = new CountDownLatch(2);
        var producer = background.startUntilStopped("producer", t -> {
            blocked.countDown();
            new CountDownLatch(1).await();
        });
        background.start("reader", t -> {
            blocked.countDown();
            new CountDownLatch(1).await();
        });
        blocked.await();

        assertThatCode(() -> background.afterEach(null)).doesNotThrowAnyException();
        assertThat(producer.isAlive()).isFalse();

        background.report("late", new IllegalStateException("after the stop"));
        assertThatThrownBy(() -> background.afterEach(null)).hasMessageContaining("late:");
    }
}
