package io.tributary.common.testing;

import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Where a test's background work reports its failures, so that none vanishes with its thread.
 *
 * <p>Tributary's system and integration tests run producers, consumers and stream readers on their
 * own threads while the test thread kills processes and waits for outcomes. An exception on such a
 * thread ends the thread and, without this class, nothing else: the test goes on and may pass with a
 * dead producer, or time out in an {@code await} that never names the cause. Each background task
 * therefore runs through a collector ({@link #start}, {@link #startUntilStopped}) or reports into it
 * ({@link #report}, for callbacks that run on a client's own threads), and the test calls {@link
 * #check()} at its checkpoints and at its end: the check fails with the first failure as its cause
 * and every other one suppressed, each with its stack.
 *
 * <p>What counts as a failure of a task:
 *
 * <ul>
 *   <li>anything it throws, unless the test asked it to stop ({@link Task#stop}, {@link
 *       Task#stopNow}, {@link #stopAll}) and what it threw is an interruption ({@link
 *       InterruptedException} or {@link ClosedByInterruptException} anywhere in the cause chain, or
 *       the thread's interrupt flag set): a task the test stopped on purpose may end interrupted,
 *       one nobody stopped may not;
 *   <li>for a task started with {@link #startUntilStopped} (a producer or consumer meant to run for
 *       the whole scenario), ending at all, even normally, before the test asked it to stop;
 *   <li>not ending within the time {@link Task#stop} or {@link #stopAll} gives it.
 * </ul>
 *
 * <p>As a JUnit 5 extension ({@code @RegisterExtension final BackgroundFailures background = new
 * BackgroundFailures();}) it stops every task still running after each test ({@link #stopAll}, each
 * one interrupted) and then checks; a failure found there is added to the test's own failure by
 * JUnit (suppressed) when the test failed too. Inside {@code await}s, {@code
 * .failFast("background work failed", background::check)} ends the wait at the first failure.
 *
 * <p>Thread-safe: tasks report from their own threads while the test thread checks.
 */
public final class BackgroundFailures implements AfterEachCallback {

    /** How long {@link #afterEach} gives the tasks left running to end once interrupted. */
    private static final Duration STOP_AT_END = Duration.ofSeconds(30);

    /** One background task's body. */
    @FunctionalInterface
    public interface Work {
        /**
         * Does the task's work; {@code task} answers {@link Task#stopRequested()} for loops that run
         * until the test stops them.
         */
        void run(Task task) throws Exception;
    }

    /** A failure with the task (or the reporter) it came from, in the order reported. */
    public static final class Failure extends AssertionError {
        private final String source;

        Failure(String source, String what, Throwable cause) {
            super(source + ": " + what, cause);
            this.source = source;
        }

        /** The task's name, or the source given to {@link #report}. */
        public String source() {
            return source;
        }
    }

    /** A running (or finished) background task: its thread and its stop request. */
    public final class Task {
        private final String name;
        private final boolean untilStopped;
        private final Thread thread;
        private volatile boolean stopRequested;

        private Task(String name, boolean untilStopped, Work work) {
            this.name = name;
            this.untilStopped = untilStopped;
            Objects.requireNonNull(work, "work");
            this.thread = Thread.ofPlatform().name(name).daemon().unstarted(() -> run(work));
        }

        public String name() {
            return name;
        }

        /** True once the test asked the task to stop: loops end when they see it. */
        public boolean stopRequested() {
            return stopRequested;
        }

        /** True while the task's thread runs. */
        public boolean isAlive() {
            return thread.isAlive();
        }

        /**
         * Asks the task to stop without waiting (to ask several at once, then {@link #join} each).
         */
        public void requestStop() {
            stopRequested = true;
        }

        /**
         * Asks the task to stop and waits up to {@code timeout} for it to end by itself (no
         * interrupt: a producer flushes what it has in flight). A task still running then is a
         * failure, and is interrupted.
         */
        public void stop(Duration timeout) throws InterruptedException {
            stopRequested = true;
            awaitEnd(timeout);
        }

        /**
         * Asks the task to stop, interrupts it, and waits up to {@code timeout} for it to end. An
         * interruption it ends with is not a failure; still running after {@code timeout} is.
         */
        public void stopNow(Duration timeout) throws InterruptedException {
            stopRequested = true;
            thread.interrupt();
            awaitEnd(timeout);
        }

        /**
         * Waits up to {@code timeout} for the task to end, without asking it to stop (a writer that
         * sends a fixed number of records; or after {@link #requestStop()}). Still running then is a
         * failure, and is interrupted.
         */
        public void join(Duration timeout) throws InterruptedException {
            awaitEnd(timeout);
        }

        private void awaitEnd(Duration timeout) throws InterruptedException {
            thread.join(timeout);
            if (thread.isAlive()) {
                record(
                        name,
                        "still running " + timeout + (stopRequested ? " after being asked to stop" : " into the wait"),
                        stackOf(thread));
                thread.interrupt();
            }
        }

        private void run(Work work) {
            Throwable thrown = null;
            try {
                work.run(this);
            } catch (Throwable t) {
                thrown = t;
            }
            if (thrown == null) {
                if (untilStopped && !stopRequested) {
                    record(name, "ended before the test stopped it", null);
                }
            } else if (!(stopRequested && interruption(thrown))) {
                record(name, "failed: " + thrown, thrown);
            }
        }
    }

    private final List<Failure> failures = new ArrayList<>();
    private final List<Task> tasks = new ArrayList<>();

    /**
     * Starts {@code work} on a new platform (daemon) thread named {@code name}; it may end whenever
     * it is done. What it throws is a failure (see the class comment).
     */
    public Task start(String name, Work work) {
        return launch(new Task(name, false, work));
    }

    /**
     * Starts {@code work} as {@link #start} does, for a task meant to run until the test stops it
     * (it loops on {@link Task#stopRequested()}): ending before {@link Task#stop} or {@link
     * #stopAll}, normally or not, is a failure.
     */
    public Task startUntilStopped(String name, Work work) {
        return launch(new Task(name, true, work));
    }

    private Task launch(Task task) {
        synchronized (this) {
            tasks.add(task);
        }
        task.thread.start();
        return task;
    }

    /**
     * Records {@code failure} from {@code source}: for work that runs on threads this class did not
     * start (a client's callback) or for a task that meets something wrong and goes on.
     */
    public void report(String source, Throwable failure) {
        record(source, String.valueOf(failure), failure);
    }

    private void record(String source, String what, Throwable cause) {
        synchronized (this) {
            failures.add(new Failure(source, what, cause));
        }
    }

    /** Every failure so far, the first first. */
    public synchronized List<Failure> failures() {
        return List.copyOf(failures);
    }

    /**
     * Fails, if anything failed so far, with an {@link AssertionError} that names every failure:
     * its cause is the first, the others are suppressed. Does nothing otherwise; can be called as
     * often as wanted (a failure stays).
     */
    public void check() {
        List<Failure> all = failures();
        if (all.isEmpty()) {
            return;
        }
        var message = new StringBuilder()
                .append(all.size())
                .append(all.size() == 1 ? " background failure" : " background failures")
                .append(" (the first is the cause, the others suppressed):");
        all.forEach(f -> message.append("\n  ").append(f.getMessage()));
        var error = new AssertionError(message.toString(), all.getFirst());
        all.stream().skip(1).forEach(error::addSuppressed);
        throw error;
    }

    /**
     * Stops every task still running: asks it to stop, interrupts it and waits up to {@code
     * timeout} for all of them (each still running then is a failure).
     */
    public void stopAll(Duration timeout) throws InterruptedException {
        List<Task> running;
        synchronized (this) {
            running = List.copyOf(tasks);
        }
        for (Task task : running) {
            task.stopRequested = true;
            task.thread.interrupt();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Task task : running) {
            task.awaitEnd(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
    }

    /** The extension's end of a test: {@link #stopAll} what is left, then {@link #check()}. */
    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        stopAll(STOP_AT_END);
        check();
    }

    /** True for what a thread interrupted on purpose ends with. */
    static boolean interruption(Throwable thrown) {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException || t instanceof ClosedByInterruptException) {
                return true;
            }
        }
        return false;
    }

    private static Throwable stackOf(Thread thread) {
        var where = new Throwable("where " + thread.getName() + " was");
        where.setStackTrace(thread.getStackTrace());
        return where;
    }
}
