package io.tributary.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterAcls;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataDelta;
import io.tributary.broker.cluster.ScramUsers;
import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClusterAuthorizerTest {

    private static final KafkaPrincipal ALICE = KafkaPrincipal.user("alice");

    private static final AclBinding READ_ORDERS = new AclBinding(
            AclResourceType.TOPIC,
            "orders",
            AclPatternType.LITERAL,
            "User:alice",
            "*",
            AclOperation.READ,
            AclPermission.ALLOW);

    private final ClusterAuthorizer authorizer =
            new ClusterAuthorizer(new AclAuthorizer.Settings(Set.of(KafkaPrincipal.user("admin")), false));

    private boolean aliceMayRead() {
        return authorizer.get().allowed(ALICE, "127.0.0.1", AclOperation.READ, AclResourceType.TOPIC, "orders");
    }

    private static MetadataDelta delta(long version, boolean full, Optional<ClusterAcls> acls) {
        return new MetadataDelta(version, full, List.of(), List.of(), List.of(), Optional.empty(), acls);
    }

    @Test
    void checksFollowTheNewestImagesAclsAndOneAuthorizerServesUntilTheyChange() {
        assertThat(aliceMayRead()).isFalse();
        ClusterImage withAcl =
                ClusterImage.EMPTY.apply(delta(1, true, Optional.of(new ClusterAcls(List.of(READ_ORDERS)))));

        authorizer.onImage(ClusterImage.EMPTY, withAcl);
        AclAuthorizer built = authorizer.get();
        ClusterImage later = withAcl.apply(delta(2, false, Optional.empty()));
        authorizer.onImage(withAcl, later);

        assertThat(aliceMayRead()).isTrue();
        assertThat(later.acls()).isSameAs(withAcl.acls());
        assertThat(authorizer.get()).isSameAs(built);
        assertThat(authorizer
                        .get()
                        .allowed(
                                KafkaPrincipal.user("admin"),
                                "127.0.0.1",
                                AclOperation.ALTER,
                                AclResourceType.CLUSTER,
                                "kafka-cluster"))
                .isTrue();
    }

    @Test
    void aDeltaCarryingNoAclsEmptiesTheSetAndAFullImageWithoutThemToo() {
        ClusterImage withAcl =
                new ClusterImage(1, Map.of(), Map.of(), ScramUsers.EMPTY, new ClusterAcls(List.of(READ_ORDERS)));
        authorizer.onImage(ClusterImage.EMPTY, withAcl);

        ClusterImage emptied = withAcl.apply(delta(2, false, Optional.of(ClusterAcls.EMPTY)));
        authorizer.onImage(withAcl, emptied);

        assertThat(aliceMayRead()).isFalse();
        assertThat(withAcl.apply(new MetadataDelta(3, true, List.of(), List.of(), List.of()))
                        .acls())
                .isEqualTo(ClusterAcls.EMPTY);
    }
}
