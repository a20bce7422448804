package io.tributary.broker.app;

import io.tributary.common.app.DataDirectory;
import io.tributary.common.app.KafkaListenerConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** A Tributary broker process: the Kafka-protocol listener, actuator, and (as they land) the log. */
@SpringBootApplication
@EnableConfigurationProperties(BrokerProperties.class)
@Import(KafkaListenerConfiguration.class)
public class BrokerApplication {

    public static void main(String[] args) {
        SpringApplication.run(BrokerApplication.class, args);
    }

    @Bean
    DataDirectory dataDirectory(BrokerProperties properties) {
        return DataDirectory.create(properties.dataDir(), "tributary.broker.data-dir");
    }
}
