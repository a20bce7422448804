package io.tributary.common.security.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.security.acl.AclAuthorizer;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InternalUsersTest {

    private static final ClusterSecret SECRET = ClusterSecret.of("0123456789abcdef0123456789abcdef-test");

    @Test
    void aBrokersLoginPasswordIsTheHmacOfTheLabelUnderItsKeyAsOpensslDerivesIt() {
        // K=$(printf tributary-broker-3 | openssl dgst -sha256 -mac HMAC -macopt key:<SECRET> -binary | xxd -p -c 64)
        // printf tributary-kafka-login | openssl dgst -sha256 -mac HMAC -macopt hexkey:$K -binary | base64
        InternalLogin login = SECRET.brokerKey(3).kafkaLogin();

        assertThat(login.user()).isEqualTo("tributary-broker-3");
        assertThat(login.password()).isEqualTo("SvUxKng5V31Pq51smSieAN2b9mLk+XJeOsReur21QME=");
        assertThat(login.toString()).doesNotContain(login.password());
        assertThat(SECRET.brokerKey(4).kafkaLogin().password()).isNotEqualTo(login.password());
    }

    @Test
    void theCoordinatorsLoginIsDerivedLikeABrokersUnderTheirOwnName() {
        // K=$(printf tributary-coordinator | openssl dgst -sha256 -mac HMAC -macopt key:<SECRET> -binary | xxd -p -c
        // 64)
        InternalLogin login = SECRET.coordinatorLogin();

        assertThat(login.user()).isEqualTo("tributary-coordinator");
        assertThat(login.password()).isEqualTo("iJEF8T218E5ML34DjXmMqnCF+PNlQeE/rR+B2iDBbw4=");
    }

    @Test
    void aBrokerPrincipalNamesItsIdWrittenAsTheBrokerWritesIt() {
        assertThat(InternalUsers.brokerId(KafkaPrincipal.user("tributary-broker-0")))
                .isEqualTo(OptionalInt.of(0));
        assertThat(InternalUsers.brokerId(KafkaPrincipal.user("tributary-broker-2147483647")))
                .isEqualTo(OptionalInt.of(Integer.MAX_VALUE));
        assertThat(InternalUsers.brokerId(new KafkaPrincipal("Group", "tributary-broker-1")))
                .isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "tributary-broker-",
                "tributary-broker-01",
                "tributary-broker-x",
                "tributary-broker--1",
                "tributary-broker-2147483648",
                "tributary-broker-1 ",
                "alice"
            })
    void otherNamesAreNoBroker(String name) {
        assertThat(InternalUsers.brokerId(KafkaPrincipal.user(name))).isEmpty();
        assertThat(InternalUsers.isInternal(KafkaPrincipal.user(name))).isFalse();
    }

    @Test
    void theBrokerPrefixAndTheCoordinatorsNameAreReserved() {
        assertThat(InternalUsers.reserved("tributary-broker-1")).isTrue();
        assertThat(InternalUsers.reserved("tributary-broker-anything")).isTrue();
        assertThat(InternalUsers.reserved("tributary-coordinator")).isTrue();
        assertThat(InternalUsers.reserved("tributary-coordinators")).isFalse();
        assertThat(InternalUsers.reserved("tributary-brokers")).isFalse();
        assertThat(InternalUsers.reserved("alice")).isFalse();
    }

    @Test
    void aBrokerFetchesAsAFollowerOnlyWithItsOwnReplicaId() {
        KafkaPrincipal broker = KafkaPrincipal.user("tributary-broker-2");

        assertThat(InternalUsers.mayFetchAsReplica(broker, 2)).isTrue();
        assertThat(InternalUsers.mayFetchAsReplica(broker, 3)).isFalse();
        assertThat(InternalUsers.mayFetchAsReplica(KafkaPrincipal.user("admin"), 3))
                .isTrue();
    }

    @Test
    void internalPrincipalsAreSuperUsersOfTheAuthorizer() {
        AclAuthorizer acls =
                AclAuthorizer.empty(new AclAuthorizer.Settings(Set.of(KafkaPrincipal.user("admin")), false));

        for (String name : new String[] {"tributary-broker-7", "tributary-coordinator", "admin"}) {
            assertThat(acls.authorize(
                                    KafkaPrincipal.user(name),
                                    "127.0.0.1",
                                    AclOperation.CLUSTER_ACTION,
                                    AclResourceType.CLUSTER,
                                    AclResourceType.CLUSTER_NAME)
                            .reason())
                    .as(name)
                    .isEqualTo(AclAuthorizer.Reason.SUPER_USER);
        }
        assertThat(acls.authorize(
                                KafkaPrincipal.user("tributary-brokers"),
                                "127.0.0.1",
                                AclOperation.CLUSTER_ACTION,
                                AclResourceType.CLUSTER,
                                AclResourceType.CLUSTER_NAME)
                        .allowed())
                .isFalse();
    }
}
