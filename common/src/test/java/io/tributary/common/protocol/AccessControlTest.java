package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class AccessControlTest {

    private static final ConnectionInfo ALICE = new ConnectionInfo(
            "c1", new InetSocketAddress("10.0.0.7", 40000), "external", KafkaPrincipal.user("alice"));

    private static final AccessControl READS_ORDERS_TOPICS = AccessControl.of(() -> AclAuthorizer.of(
            List.of(
                    new AclBinding(
                            AclResourceType.TOPIC,
                            "orders-",
                            AclPatternType.PREFIXED,
                            "User:alice",
                            "10.0.0.7",
                            AclOperation.READ,
                            AclPermission.ALLOW),
                    new AclBinding(
                            AclResourceType.TOPIC,
                            "orders-secret",
                            AclPatternType.LITERAL,
                            "User:*",
                            AclBinding.ANY_HOST,
                            AclOperation.ALL,
                            AclPermission.DENY)),
            new AclAuthorizer.Settings(Set.of(), false)));

    @Test
    void withoutAnAuthorizerEverythingIsAllowed() {
        assertThat(AccessControl.OPEN.enabled()).isFalse();
        assertThat(AccessControl.OPEN.allowed(ALICE, AclOperation.DELETE, AclResourceType.TOPIC, "t"))
                .isTrue();
        assertThat(AccessControl.OPEN.allowedQuietly(ALICE, AclOperation.READ, AclResourceType.TOPIC, "a"))
                .isTrue();
        int every = 0;
        for (AclOperation operation : AclResourceType.TOPIC.supportedOperations()) {
            every |= 1 << operation.code();
        }
        assertThat(AccessControl.OPEN.authorizedOperations(ALICE, AclResourceType.TOPIC, "t"))
                .isEqualTo(every);
    }

    @Test
    void theAclsDecideForTheCallersPrincipalAndHost() {
        assertThat(READS_ORDERS_TOPICS.enabled()).isTrue();
        assertThat(Stream.of("orders-eu", "payments", "orders-secret")
                        .filter(name -> READS_ORDERS_TOPICS.allowedQuietly(
                                ALICE, AclOperation.DESCRIBE, AclResourceType.TOPIC, name)))
                .containsExactly("orders-eu");
        assertThat(READS_ORDERS_TOPICS.allowed(ALICE, AclOperation.DESCRIBE, AclResourceType.TOPIC, "orders-secret"))
                .isFalse();
        var elsewhere = new ConnectionInfo(
                "c2", new InetSocketAddress("10.0.0.8", 40000), "external", KafkaPrincipal.user("alice"));
        assertThat(READS_ORDERS_TOPICS.allowed(elsewhere, AclOperation.READ, AclResourceType.TOPIC, "orders-eu"))
                .isFalse();
        assertThat(READS_ORDERS_TOPICS.authorizedOperations(ALICE, AclResourceType.TOPIC, "orders-eu"))
                .isEqualTo(1 << AclOperation.READ.code() | 1 << AclOperation.DESCRIBE.code());
    }

    @Test
    void onAnyResourceIsTheCallersAndOpenWithoutAnAuthorizer() {
        assertThat(AccessControl.OPEN.allowedOnAnyResource(ALICE, AclOperation.WRITE, AclResourceType.TOPIC))
                .isTrue();
        // a PREFIXED READ for alice from her host, not for another host nor another operation
        assertThat(READS_ORDERS_TOPICS.allowedOnAnyResource(ALICE, AclOperation.READ, AclResourceType.TOPIC))
                .isTrue();
        assertThat(READS_ORDERS_TOPICS.allowedOnAnyResource(ALICE, AclOperation.WRITE, AclResourceType.TOPIC))
                .isFalse();
        var elsewhere = new ConnectionInfo(
                "c2", new InetSocketAddress("10.0.0.8", 40000), "external", KafkaPrincipal.user("alice"));
        assertThat(READS_ORDERS_TOPICS.allowedOnAnyResource(elsewhere, AclOperation.READ, AclResourceType.TOPIC))
                .isFalse();
    }
}
