package io.tributary.coordinator.app;

import io.tributary.common.app.DataDirectory;
import io.tributary.common.app.KafkaListenerConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** A Tributary coordinator process: the Kafka-protocol listener, actuator, and (as it lands) Raft. */
@SpringBootApplication
@EnableConfigurationProperties(CoordinatorProperties.class)
@Import(KafkaListenerConfiguration.class)
public class CoordinatorApplication {

    public static void main(String[] args) {
        SpringApplication.run(CoordinatorApplication.class, args);
    }

    @Bean
    DataDirectory dataDirectory(CoordinatorProperties properties) {
        return DataDirectory.create(properties.dataDir(), "tributary.coordinator.data-dir");
    }
}
