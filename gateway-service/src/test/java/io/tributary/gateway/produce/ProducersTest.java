package io.tributary.gateway.produce;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.gateway.produce.Producers.Load;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.MockProducer;
import org.junit.jupiter.api.Test;

class ProducersTest {

    @Test
    void aRequestOfOneRecordIsSingleAndOfMoreIsMulti() {
        assertThat(Load.of(0)).isEqualTo(Load.SINGLE_RECORD);
        assertThat(Load.of(1)).isEqualTo(Load.SINGLE_RECORD);
        assertThat(Load.of(2)).isEqualTo(Load.MULTI_RECORD);
        assertThat(Load.of(1000)).isEqualTo(Load.MULTI_RECORD);
    }

    @Test
    void eachAcksLevelAndLoadGetsItsOwnProducerCreatedOnceOnFirstUse() {
        List<String> created = new ArrayList<>();
        List<MockProducer<byte[], byte[]>> all = new ArrayList<>();
        try (Producers producers = new Producers((acks, load) -> {
            created.add(acks.apiName() + "/" + load);
            MockProducer<byte[], byte[]> p = new MockProducer<>();
            all.add(p);
            return p;
        })) {
            assertThat(created).isEmpty();
            var single = producers.get(Acks.ALL);
            assertThat(producers.get(Acks.ALL, Load.SINGLE_RECORD)).isSameAs(single);
            var multi = producers.get(Acks.ALL, Load.MULTI_RECORD);
            assertThat(multi).isNotSameAs(single);
            assertThat(producers.get(Acks.ALL, Load.MULTI_RECORD)).isSameAs(multi);
            assertThat(producers.get(Acks.LEADER, Load.MULTI_RECORD)).isNotSameAs(multi);
            assertThat(created).containsExactly("all/SINGLE_RECORD", "all/MULTI_RECORD", "leader/MULTI_RECORD");
        }
        assertThat(all).allMatch(MockProducer::closed);
    }
}
