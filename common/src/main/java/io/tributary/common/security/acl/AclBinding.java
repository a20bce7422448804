package io.tributary.common.security.acl;

import java.util.Objects;
import java.util.Optional;

/**
 * One ACL: on the resources {@code (resourceType, resourceName, patternType)} name, {@code principal}
 * connecting from {@code host} ({@code *} for any) is allowed or denied {@code operation}.
 *
 * @param resourceType the kind of resource (never ANY or UNKNOWN once {@link #validate valid})
 * @param resourceName the name, {@code *} with LITERAL for every name, a prefix with PREFIXED
 * @param patternType LITERAL or PREFIXED once valid
 * @param principal {@code TYPE:NAME}, as given (Kafka keeps the string; it must parse as a {@link
 *     KafkaPrincipal})
 * @param host the client's address as the broker sees it ({@code 127.0.0.1}), or {@code *}
 * @param operation the operation (never ANY or UNKNOWN once valid)
 * @param permission ALLOW or DENY once valid
 */
public record AclBinding(
        AclResourceType resourceType,
        String resourceName,
        AclPatternType patternType,
        String principal,
        String host,
        AclOperation operation,
        AclPermission permission) {

    /** In {@link #host}: any address. */
    public static final String ANY_HOST = "*";

    /** With {@link AclPatternType#LITERAL}: every resource name of the type. */
    public static final String WILDCARD_NAME = "*";

    public AclBinding {
        Objects.requireNonNull(resourceType, "resourceType");
        Objects.requireNonNull(patternType, "patternType");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(permission, "permission");
    }

    /**
     * Why this binding cannot be created, with Kafka's message for CreateAcls (its answer is {@code
     * INVALID_REQUEST} with that message), or empty when it can.
     */
    public Optional<String> validate() {
        if (resourceType == AclResourceType.UNKNOWN || resourceType == AclResourceType.ANY) {
            return Optional.of("Invalid resourceType " + resourceType);
        }
        if (patternType != AclPatternType.LITERAL && patternType != AclPatternType.PREFIXED) {
            return Optional.of("Invalid patternType " + patternType);
        }
        if (operation == AclOperation.UNKNOWN || operation == AclOperation.ANY) {
            return Optional.of("Invalid operation " + operation);
        }
        if (permission != AclPermission.ALLOW && permission != AclPermission.DENY) {
            return Optional.of("Invalid permissionType " + permission);
        }
        if (resourceName == null || resourceName.isEmpty()) {
            return Optional.of("Resource name should not be empty");
        }
        if (principal == null || principal.indexOf(':') < 0) {
            return Optional.of("Could not parse principal from `" + principal + "` "
                    + "(no colon is present separating the principal type from the principal name)");
        }
        if (host == null || host.isEmpty()) {
            return Optional.of("Host pattern cannot be null or empty");
        }
        return Optional.empty();
    }

    /** Whether this binding's resource pattern matches the resource {@code (type, name)} named in a request. */
    boolean matchesResource(AclResourceType type, String name) {
        if (type != resourceType) {
            return false;
        }
        return switch (patternType) {
            case LITERAL -> resourceName.equals(name) || resourceName.equals(WILDCARD_NAME);
            case PREFIXED -> name.startsWith(resourceName);
            default -> false;
        };
    }
}
