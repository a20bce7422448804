package io.tributary.broker.security;

import io.tributary.broker.cluster.ClusterAcls;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataListener;
import io.tributary.common.security.acl.AclAuthorizer;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The authorization decisions over the cluster's ACLs as this broker's newest {@link ClusterImage}
 * has them (the coordinators' replicated store, changed by CreateAcls and DeleteAcls): one {@link
 * AclAuthorizer} built per change of the ACLs, shared by every request thread until the next.
 *
 * <p>A new ACL set takes effect on the first check after the metadata follower applied the image
 * that carries it (the coordinators' long poll answers at once, so a change reaches the broker one
 * round trip after it commits).
 *
 * <p>Thread-safety: one volatile reference to an immutable authorizer, set on the metadata
 * follower's thread and read on connections' threads; a check sees the ACLs of one image.
 */
public final class ClusterAuthorizer implements MetadataListener, Supplier<AclAuthorizer> {

    private static final Logger log = LoggerFactory.getLogger(ClusterAuthorizer.class);

    private final AclAuthorizer.Settings settings;
    private volatile ClusterAcls acls = ClusterAcls.EMPTY;
    private volatile AclAuthorizer current;

    /** @param settings super users and {@code allow.everyone.if.no.acl.found} */
    public ClusterAuthorizer(AclAuthorizer.Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.current = AclAuthorizer.empty(settings);
    }

    @Override
    public void onImage(ClusterImage previous, ClusterImage next) {
        ClusterAcls changed = next.acls();
        if (!changed.equals(acls)) {
            current = AclAuthorizer.of(changed.bindings(), settings);
            acls = changed;
            log.info(
                    "ACLs at metadata version {}: {} ACLs",
                    next.version(),
                    changed.bindings().size());
        }
    }

    /** The authorizer over the newest ACLs. */
    @Override
    public AclAuthorizer get() {
        return current;
    }
}
