package io.tributary.common.security.acl;

/**
 * Which ACLs a DescribeAcls or DeleteAcls request means, as Kafka's {@code AclBindingFilter}: a null
 * field matches anything, ANY matches any value, and the pattern type MATCH selects every stored
 * pattern that would match a resource of the filter's name (the literal of that name, the literal
 * wildcard {@code *}, every prefix pattern the name starts with).
 *
 * @param resourceType a type, or ANY
 * @param resourceName a name, or null for any
 * @param patternType LITERAL, PREFIXED, ANY (any type, the name compared as given) or MATCH
 * @param principal a principal string, or null for any
 * @param host a host, or null for any
 * @param operation an operation, or ANY
 * @param permission ALLOW, DENY or ANY
 */
public record AclBindingFilter(
        AclResourceType resourceType,
        String resourceName,
        AclPatternType patternType,
        String principal,
        String host,
        AclOperation operation,
        AclPermission permission) {

    /** Every ACL. */
    public static final AclBindingFilter ANY = new AclBindingFilter(
            AclResourceType.ANY, null, AclPatternType.ANY, null, null, AclOperation.ANY, AclPermission.ANY);

    /**
     * Why Kafka refuses this filter in DeleteAcls ({@code INVALID_REQUEST}), or null: a field whose
     * code it does not know.
     */
    public String invalidReason() {
        if (resourceType == AclResourceType.UNKNOWN || patternType == AclPatternType.UNKNOWN) {
            return "Unknown patternFilter.";
        }
        if (operation == AclOperation.UNKNOWN || permission == AclPermission.UNKNOWN) {
            return "Unknown entryFilter.";
        }
        return null;
    }

    /** Whether {@code binding} is one of the ACLs this filter means. */
    public boolean matches(AclBinding binding) {
        return matchesPattern(binding) && matchesEntry(binding);
    }

    private boolean matchesPattern(AclBinding binding) {
        if (resourceType != AclResourceType.ANY && resourceType != binding.resourceType()) {
            return false;
        }
        if (patternType != AclPatternType.ANY
                && patternType != AclPatternType.MATCH
                && patternType != binding.patternType()) {
            return false;
        }
        if (resourceName == null) {
            return true;
        }
        if (patternType == AclPatternType.ANY || patternType == binding.patternType()) {
            return resourceName.equals(binding.resourceName());
        }
        // MATCH: the stored patterns that a resource named resourceName falls under.
        return switch (binding.patternType()) {
            case LITERAL ->
                resourceName.equals(binding.resourceName())
                        || binding.resourceName().equals(AclBinding.WILDCARD_NAME);
            case PREFIXED -> resourceName.startsWith(binding.resourceName());
            default -> false;
        };
    }

    private boolean matchesEntry(AclBinding binding) {
        return (principal == null || principal.equals(binding.principal()))
                && (host == null || host.equals(binding.host()))
                && (operation == AclOperation.ANY || operation == binding.operation())
                && (permission == AclPermission.ANY || permission == binding.permission());
    }
}
