package io.tributary.common.security.acl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AuthorizerConfigTest {

    private static final String PREFIX = "tributary.broker.";

    @Test
    void withoutASwitchThereIsNoAuthorizerWhateverElseIsSet() {
        assertThat(AuthorizerConfig.parse(Map.of(), PREFIX)).isEmpty();
        assertThat(AuthorizerConfig.parse(Map.of("super.users", "User:admin", "authorizer.enabled", "false"), PREFIX))
                .isEmpty();
    }

    @Test
    void eitherSwitchTurnsItOnWithKafkasDefaultsAndSemicolonSeparatedSuperUsers() {
        assertThat(AuthorizerConfig.parse(Map.of("authorizer.enabled", "true"), PREFIX))
                .contains(new AclAuthorizer.Settings(Set.of(), false));
        assertThat(AuthorizerConfig.parse(
                        Map.of(
                                "authorizer.class.name",
                                "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                                "super.users",
                                " User:admin ;User:ANONYMOUS;",
                                "allow.everyone.if.no.acl.found",
                                "TRUE"),
                        PREFIX))
                .contains(new AclAuthorizer.Settings(
                        Set.of(KafkaPrincipal.user("admin"), KafkaPrincipal.ANONYMOUS), true));
    }

    @Test
    void anotherAuthorizerClassABadPrincipalOrABadFlagIsRefusedWithTheSettingsName() {
        assertThatThrownBy(() -> AuthorizerConfig.parse(Map.of("authorizer.class.name", "com.example.Mine"), PREFIX))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tributary.broker.authorizer.class.name");
        assertThatThrownBy(() ->
                        AuthorizerConfig.parse(Map.of("authorizer.enabled", "true", "super.users", "admin"), PREFIX))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tributary.broker.super.users");
        assertThatThrownBy(() -> AuthorizerConfig.parse(Map.of("allow.everyone.if.no.acl.found", "yes"), PREFIX))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allow.everyone.if.no.acl.found");
    }
}
