package io.tributary.systemtests.kafka;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Marks a test class that runs its scenarios on the targets of {@link KafkaTargets}, which every
 * such class of the run shares: registers {@link KafkaTargets} (which stops the targets when the
 * run ends) and makes the class {@code SAME_THREAD}, so that these classes run one after the other,
 * in name order, in JUnit's first thread, never two at once on the same targets.
 *
 * <p>Failsafe runs the other {@code *IT} classes, each with clusters of its own, concurrently
 * (JUnit's parallel execution, at most {@code systest.parallelism} classes at a time, 2 by
 * default; see the module's POM and README): they run one after the other in a second thread,
 * beside these. A class that uses {@link KafkaTargets#get} must carry this annotation.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(KafkaTargets.class)
@Execution(ExecutionMode.SAME_THREAD)
public @interface OnSharedTargets {}
