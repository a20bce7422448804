package io.tributary.broker.api;

import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.RequestHandler;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What CreateAcls and DeleteAcls share: the control plane they forward to, whether an authorizer is
 * on ({@code SECURITY_DISABLED} when not), and the wait until this broker's image has the write.
 *
 * <p>Thread-safety: stateless.
 */
abstract sealed class AclWriteHandler implements RequestHandler permits CreateAclsHandler, DeleteAclsHandler {

    private static final Logger log = LoggerFactory.getLogger(AclWriteHandler.class);

    final MetadataView metadata;
    final ControlPlane controlPlane;
    final AdminApiConfig config;
    final AccessControl access;

    AclWriteHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config, AccessControl access) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.config = Objects.requireNonNull(config, "config");
        this.access = Objects.requireNonNull(access, "access");
    }

    /**
     * Waits, up to {@link AdminApiConfig#maxMetadataWait()}, until this broker's image reaches
     * {@code version} (the write's), so that the caller's next request is checked against it.
     */
    void awaitWrite(long version) {
        if (!ClusterViews.awaitVersion(metadata, version, config.maxMetadataWait())) {
            log.warn(
                    "ACLs written at metadata version {}, which this broker has not reached within {}",
                    version,
                    config.maxMetadataWait());
        }
    }
}
