package io.tributary.coordinator.metadata;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The ACLs of a {@link MetadataImage} ({@link MetadataCommand.CreateAcls}, {@link
 * MetadataCommand.DeleteAcls}): a set of valid {@link AclBinding}s, each stored once, in the
 * canonical {@link #ORDER} (the order {@link ImageCodec} writes them in).
 *
 * <p>A value of its own, like {@link ScramCredentials}: images whose command did not touch ACLs
 * share it unchanged; a change copies the set.
 *
 * <p>Thread-safety: immutable; safe to share.
 */
public final class AclSet {

    /**
     * The canonical order: resource type, resource name, pattern type, principal, host, operation,
     * permission (enums by wire code, strings by {@link String#compareTo}).
     */
    public static final Comparator<AclBinding> ORDER = Comparator.comparingInt(
                    (AclBinding b) -> b.resourceType().code())
            .thenComparing(AclBinding::resourceName)
            .thenComparingInt(b -> b.patternType().code())
            .thenComparing(AclBinding::principal)
            .thenComparing(AclBinding::host)
            .thenComparingInt(b -> b.operation().code())
            .thenComparingInt(b -> b.permission().code());

    /** No ACL. */
    public static final AclSet EMPTY = new AclSet(new TreeSet<>(ORDER));

    private final NavigableSet<AclBinding> acls;

    private AclSet(NavigableSet<AclBinding> acls) {
        this.acls = Collections.unmodifiableNavigableSet(acls);
    }

    /**
     * The set of {@code acls} (a snapshot being read, tests).
     *
     * @throws IllegalStateException if one is not valid ({@link AclBinding#validate})
     */
    public static AclSet of(Collection<AclBinding> acls) {
        NavigableSet<AclBinding> set = new TreeSet<>(ORDER);
        for (AclBinding acl : acls) {
            acl.validate().ifPresent(reason -> {
                throw new IllegalStateException("ACLs: " + reason + ": " + acl);
            });
            set.add(acl);
        }
        return new AclSet(set);
    }

    /** How many ACLs are stored. */
    public int size() {
        return acls.size();
    }

    /** Whether this exact ACL is stored. */
    public boolean contains(AclBinding acl) {
        return acls.contains(acl);
    }

    /** Every ACL, in {@link #ORDER} (unmodifiable). */
    public NavigableSet<AclBinding> asSet() {
        return acls;
    }

    /** The stored ACLs {@code filter} matches, in {@link #ORDER}. */
    public List<AclBinding> matching(AclBindingFilter filter) {
        return acls.stream().filter(filter::matches).toList();
    }

    /**
     * These ACLs with {@code created} added (one already stored is no change: a resent command);
     * {@code this} when nothing changes.
     *
     * @throws InvalidRequestException if one is not valid
     */
    AclSet with(List<AclBinding> created) {
        for (AclBinding acl : created) {
            acl.validate().ifPresent(reason -> {
                throw new InvalidRequestException("ACL " + acl + ": " + reason);
            });
        }
        if (acls.containsAll(created)) {
            return this;
        }
        NavigableSet<AclBinding> next = new TreeSet<>(acls);
        next.addAll(created);
        return new AclSet(next);
    }

    /**
     * These ACLs without {@code deleted} (one not stored is ignored: a resent command, or an ACL a
     * command between deleted first); {@code this} when nothing changes.
     */
    AclSet without(List<AclBinding> deleted) {
        if (deleted.stream().noneMatch(acls::contains)) {
            return this;
        }
        NavigableSet<AclBinding> next = new TreeSet<>(acls);
        deleted.forEach(next::remove);
        return new AclSet(next);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AclSet other && acls.equals(other.acls);
    }

    @Override
    public int hashCode() {
        return acls.hashCode();
    }

    @Override
    public String toString() {
        return "AclSet[" + acls.size() + " ACLs]";
    }
}
