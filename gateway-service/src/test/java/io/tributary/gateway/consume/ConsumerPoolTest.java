package io.tributary.gateway.consume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ConsumerPoolTest {

    private final AtomicInteger created = new AtomicInteger();
    private final ConsumerPool pool = new ConsumerPool(
            () -> {
                created.incrementAndGet();
                return new MockConsumer<>("none");
            },
            2,
            Duration.ofMillis(50));

    @Test
    void aReleasedConsumerIsReusedAndUnassigned() {
        Consumer<byte[], byte[]> first = pool.acquire();
        first.assign(List.of(new TopicPartition("t", 0)));
        pool.release(first);

        Consumer<byte[], byte[]> again = pool.acquire();

        assertThat(again).isSameAs(first);
        assertThat(again.assignment()).isEmpty();
        assertThat(created).hasValue(1);
    }

    @Test
    void whenEveryConsumerIsBorrowedTheNextBorrowerGets429() {
        pool.acquire();
        pool.acquire();

        assertThatThrownBy(pool::acquire)
                .isInstanceOfSatisfying(
                        ProblemException.class, e -> assertThat(e.type()).isEqualTo(ProblemType.TOO_MANY_REQUESTS));
        assertThat(created).hasValue(2);
    }

    @Test
    void aReturnedConsumerFreesASlot() {
        Consumer<byte[], byte[]> a = pool.acquire();
        pool.acquire();
        pool.release(a);

        assertThat(pool.acquire()).isSameAs(a);
    }
}
