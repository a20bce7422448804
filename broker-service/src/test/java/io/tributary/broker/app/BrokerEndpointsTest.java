package io.tributary.broker.app;

import io.tributary.common.testing.KafkaServiceEndpointsContract;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/** A broker as operators see it over HTTP; the checks are {@link KafkaServiceEndpointsContract}'s. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"tributary.kafka.port=0", "tributary.broker.data-dir=target/test-data/broker"})
@Import(EmptyClusterTestConfiguration.class)
class BrokerEndpointsTest extends KafkaServiceEndpointsContract {

    BrokerEndpointsTest() {
        super("broker");
    }
}
