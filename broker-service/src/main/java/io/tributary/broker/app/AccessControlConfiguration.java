package io.tributary.broker.app;

import io.tributary.broker.security.ClusterAuthorizer;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.RequestAuthorizer;
import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AuthorizerConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The broker's authorizer, with Kafka's setting names under {@code tributary.broker.} ({@link
 * AuthorizerConfig}): {@code authorizer.enabled=true} (or {@code authorizer.class.name} Kafka's
 * {@code StandardAuthorizer}), {@code super.users}, {@code allow.everyone.if.no.acl.found}.
 *
 * <p>On: the {@link AccessControl} the handlers' per-item checks use reads the cluster's ACLs
 * ({@link ClusterAuthorizer}, learnt with the metadata image), and every listener's handlers are
 * behind the {@link RequestAuthorizer} (the whole-request checks of {@code ApiAccess}). Off (the
 * default): {@link AccessControl#OPEN}, every request allowed and the handlers served as they are,
 * as a Kafka broker without {@code authorizer.class.name}; the ACL APIs answer {@code
 * SECURITY_DISABLED}.
 *
 * <p>Every listener is checked, the internal one too. Without the cluster secret its clients (other
 * brokers' replica fetchers, the gateway, tools on the internal port) are {@code User:ANONYMOUS},
 * so a cluster with the authorizer on lists {@code User:ANONYMOUS} among its super users, as Kafka
 * with a PLAINTEXT inter-broker listener must. With the secret they log in: brokers as {@code
 * tributary-broker-<id>}, super users by their own ({@code InternalUsers}), the gateway and tools
 * as the SCRAM users they are given.
 */
@Configuration(proxyBeanMethods = false)
class AccessControlConfiguration {

    private static final Logger log = LoggerFactory.getLogger(AccessControlConfiguration.class);

    static final String PREFIX = "tributary.broker.";

    /** The authorizer's settings when it is on. */
    static Optional<AclAuthorizer.Settings> settings(Environment environment) {
        Map<String, String> config = new HashMap<>();
        for (String key : List.of(
                AuthorizerConfig.ENABLED,
                AuthorizerConfig.CLASS_NAME,
                AuthorizerConfig.SUPER_USERS,
                AuthorizerConfig.ALLOW_EVERYONE)) {
            String value = environment.getProperty(PREFIX + key);
            if (value != null) {
                config.put(key, value);
            }
        }
        return AuthorizerConfig.parse(config, PREFIX);
    }

    /** The cluster's ACLs as decisions; followed whether or not the authorizer is on (cheap when there are none). */
    @Bean
    ClusterAuthorizer clusterAuthorizer(Environment environment) {
        return new ClusterAuthorizer(settings(environment).orElse(new AclAuthorizer.Settings(Set.of(), false)));
    }

    @Bean
    AccessControl accessControl(Environment environment, ClusterAuthorizer authorizer) {
        Optional<AclAuthorizer.Settings> settings = settings(environment);
        if (settings.isEmpty()) {
            return AccessControl.OPEN;
        }
        log.info(
                "ACL authorizer on: super.users={}, allow.everyone.if.no.acl.found={}",
                settings.get().superUsers(),
                settings.get().allowEveryoneIfNoAclFound());
        return AccessControl.of(authorizer);
    }

    /** The whole-request checks every listener puts its handlers behind (none when off). */
    @Bean
    RequestAuthorizer requestAuthorizer(AccessControl accessControl) {
        return new RequestAuthorizer(accessControl);
    }
}
