package io.tributary.broker.app;

import io.tributary.common.protocol.AccessControl;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The broker's {@link AccessControl}: who may do what to which topic, group and transactional id,
 * for the handlers' per-item checks ({@link io.tributary.common.security.acl.ApiAccess}).
 *
 * <p>Brokers run without an authorizer today ({@link AccessControl#OPEN}, Kafka's behaviour
 * without {@code authorizer.class.name}: every check allows): ACLs are not yet stored in the
 * cluster's metadata, which is what an authorizer here will read them from.
 */
@Configuration(proxyBeanMethods = false)
class AccessControlConfiguration {

    @Bean
    AccessControl accessControl() {
        return AccessControl.OPEN;
    }
}
