package io.tributary.broker.app;

import io.tributary.common.testing.KafkaServiceEndpointsContract;
import org.springframework.boot.test.context.SpringBootTest;

/** A broker as operators see it over HTTP; the checks are {@link KafkaServiceEndpointsContract}'s. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"tributary.kafka.port=0", "tributary.broker.data-dir=target/test-data/broker"})
class BrokerEndpointsTest extends KafkaServiceEndpointsContract {

    BrokerEndpointsTest() {
        super("broker");
    }
}
