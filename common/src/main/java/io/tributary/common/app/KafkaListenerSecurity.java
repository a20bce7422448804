package io.tributary.common.app;

import io.tributary.common.protocol.ListenerSecurity;
import java.util.Objects;

/**
 * The security of a service's Kafka listener ({@code tributary.kafka.*}, {@link
 * KafkaListenerConfiguration}), as a bean: a service whose listener must authenticate its callers
 * (a broker's internal listener, a coordinator's, when the cluster secret is set) defines one,
 * built with {@link KafkaListenerProperties#security} so that {@code tributary.kafka.ssl.*} still
 * applies; without it the listener is TLS from those settings when set, else {@code PLAINTEXT}.
 *
 * @param security the listener's TLS and SASL settings
 */
public record KafkaListenerSecurity(ListenerSecurity security) {

    public KafkaListenerSecurity {
        Objects.requireNonNull(security, "security");
    }
}
