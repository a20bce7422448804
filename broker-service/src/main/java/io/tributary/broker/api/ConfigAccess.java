package io.tributary.broker.api;

import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

/**
 * Who may describe or alter the configs of which resource, as Kafka's {@code ConfigHelper} and
 * {@code ControllerApis} decide: broker, broker-logger and client-metrics resources need the
 * operation on the cluster (CLUSTER_AUTHORIZATION_FAILED), a topic on the topic
 * (TOPIC_AUTHORIZATION_FAILED), a group on the group (GROUP_AUTHORIZATION_FAILED), each refusal
 * with its error's own message as Kafka answers. Other resource types are not checked here: the
 * handlers refuse them.
 *
 * <p>Thread-safety: immutable.
 */
final class ConfigAccess {

    private final AccessControl acls;

    ConfigAccess(AccessControl acls) {
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    /**
     * The refusal of {@code operation} (DESCRIBE_CONFIGS or ALTER_CONFIGS) on the config resource
     * {@code (typeId, name)} for the caller, or empty when allowed (or not a type checked here).
     */
    Optional<ApiError> refusal(ConnectionInfo caller, AclOperation operation, byte typeId, String name) {
        ConfigResource.Type type = ConfigResource.Type.forId(typeId);
        return switch (type) {
            case BROKER, BROKER_LOGGER, CLIENT_METRICS ->
                check(
                        caller,
                        operation,
                        AclResourceType.CLUSTER,
                        AclResourceType.CLUSTER_NAME,
                        Errors.CLUSTER_AUTHORIZATION_FAILED);
            case TOPIC -> check(caller, operation, AclResourceType.TOPIC, name, Errors.TOPIC_AUTHORIZATION_FAILED);
            case GROUP -> check(caller, operation, AclResourceType.GROUP, name, Errors.GROUP_AUTHORIZATION_FAILED);
            default -> Optional.empty();
        };
    }

    private Optional<ApiError> check(
            ConnectionInfo caller, AclOperation operation, AclResourceType type, String name, Errors denied) {
        return acls.allowed(caller, operation, type, name) ? Optional.empty() : Optional.of(new ApiError(denied));
    }
}
