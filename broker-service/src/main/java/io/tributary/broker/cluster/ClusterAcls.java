package io.tributary.broker.cluster;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import java.util.List;

/**
 * The ACLs the coordinators store, as a broker holds them in its {@link ClusterImage}: every ACL,
 * each once, in the coordinators' canonical order (resource type, name, pattern type, principal,
 * host, operation, permission). The coordinators' metadata long poll sends them whole whenever one
 * changes.
 *
 * <p>Thread-safety: immutable.
 *
 * @param bindings every ACL
 */
public record ClusterAcls(List<AclBinding> bindings) {

    /** No ACL. */
    public static final ClusterAcls EMPTY = new ClusterAcls(List.of());

    public ClusterAcls {
        bindings = List.copyOf(bindings);
    }

    /** The ACLs {@code filter} matches, in this set's order. */
    public List<AclBinding> matching(AclBindingFilter filter) {
        return bindings.stream().filter(filter::matches).toList();
    }

    @Override
    public String toString() {
        return "ClusterAcls[" + bindings.size() + " ACLs]";
    }
}
