package io.tributary.coordinator.app;

import io.tributary.common.testing.KafkaServiceEndpointsContract;
import org.springframework.boot.test.context.SpringBootTest;

/** A coordinator as operators see it over HTTP; the checks are {@link KafkaServiceEndpointsContract}'s. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "tributary.kafka.port=0",
            "tributary.coordinator.raft-port=0",
            "tributary.coordinator.data-dir=target/test-data/coordinator"
        })
class CoordinatorEndpointsTest extends KafkaServiceEndpointsContract {

    CoordinatorEndpointsTest() {
        super("coordinator");
    }
}
