package io.tributary.broker.api;

import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclPatternType;
import io.tributary.common.security.acl.AclPermission;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A real {@link AclAuthorizer} over the ACLs a test grants one caller, closed where none is granted
 * ({@code allow.everyone.if.no.acl.found=false}, Kafka's default), and the {@link AccessControl}
 * handlers check with; a grant takes effect on the next check. {@link #wire()} is the caller {@link
 * Wire} sends as ({@code User:ANONYMOUS} from 127.0.0.1).
 */
final class TestAcls {

    static final AclAuthorizer.Settings CLOSED = new AclAuthorizer.Settings(Set.of(), false);

    private final String principal;
    private final String host;
    private final List<AclBinding> bindings = new ArrayList<>();
    private final AtomicReference<AclAuthorizer> current = new AtomicReference<>(AclAuthorizer.empty(CLOSED));

    /** What handlers check with. */
    final AccessControl access = AccessControl.of(current::get);

    TestAcls(String principal, String host) {
        this.principal = principal;
        this.host = host;
    }

    /** ACLs for the caller {@link Wire} sends as. */
    static TestAcls wire() {
        return new TestAcls("User:ANONYMOUS", "127.0.0.1");
    }

    /** The caller of {@link #alice()}'s ACLs: {@code User:alice} from 10.0.0.7. */
    static final ConnectionInfo ALICE = new ConnectionInfo(
            "c1", new InetSocketAddress("10.0.0.7", 40000), "external", KafkaPrincipal.user("alice"));

    /** ACLs for {@link #ALICE}. */
    static TestAcls alice() {
        return new TestAcls("User:alice", "10.0.0.7");
    }

    /** {@code body} as a request of {@link #ALICE}'s. */
    static KafkaRequest fromAlice(AbstractRequest body) {
        return new KafkaRequest(new RequestHeader(body.apiKey(), body.version(), "client", 3), body, ALICE);
    }

    /** Allows the caller {@code operation} on the literal resource {@code (type, name)}. */
    TestAcls allow(AclResourceType type, String name, AclOperation operation) {
        bindings.add(
                new AclBinding(type, name, AclPatternType.LITERAL, principal, host, operation, AclPermission.ALLOW));
        current.set(AclAuthorizer.of(bindings, CLOSED));
        return this;
    }

    /** Allows the caller {@code operation} on the cluster. */
    TestAcls allowOnCluster(AclOperation operation) {
        return allow(AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME, operation);
    }
}
