package io.tributary.common.security.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code ssl.principal.mapping.rules}, with the examples of Kafka's documentation (KIP-371, the security docs). */
class SslPrincipalMapperTest {

    /** The rules of Kafka's security documentation, written one per line as it writes them. */
    private static final SslPrincipalMapper DOCS = SslPrincipalMapper.parse("""
            RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,
            RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,
            RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,
            DEFAULT""");

    @Test
    void theDocumentedRulesMapAServiceUserToItsCommonName() {
        assertThat(DOCS.name("CN=serviceuser,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=Unknown"))
                .contains("serviceuser");
    }

    @Test
    void theDocumentedRulesMapAnAdminToNameAtUnitInLowerCase() {
        assertThat(DOCS.name("CN=adminUser,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown"))
                .contains("adminuser@admin");
    }

    @Test
    void theThirdDocumentedRuleTakesTheCommonNameFromAnywhere() {
        assertThat(DOCS.name("OU=Other,cn=Bob.Smith,O=Example")).contains("bob.smith");
    }

    @Test
    void defaultKeepsTheWholeDistinguishedName() {
        assertThat(SslPrincipalMapper.DEFAULT.name("CN=client,O=example")).contains("CN=client,O=example");
        assertThat(DOCS.name("O=NoCommonName")).contains("O=NoCommonName");
    }

    @Test
    void upperCaseFlagUpperCasesTheResult() {
        assertThat(SslPrincipalMapper.parse("RULE:^CN=([^,]*),.*$/$1/U").name("CN=alice,O=example"))
                .contains("ALICE");
    }

    @Test
    void withoutDefaultANameNoRuleMatchesGetsNoPrincipal() {
        SslPrincipalMapper mapper = SslPrincipalMapper.parse("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/");
        assertThat(mapper.name("CN=someone,OU=Humans")).isEmpty();
    }

    @Test
    void anEscapedSlashBelongsToThePattern() {
        SslPrincipalMapper mapper = SslPrincipalMapper.parse("RULE:^CN=([^\\/]*)\\/(.*)$/$2/");
        assertThat(mapper.name("CN=a/b")).contains("b");
    }

    @Test
    void textThatIsNotARuleIsRefusedWithItsPosition() {
        assertThatThrownBy(() -> SslPrincipalMapper.parse("RULE:^CN=(.*)$/$1/L,NOPE"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("position 20")
                .hasMessageContaining("NOPE");
        assertThatThrownBy(() -> SslPrincipalMapper.parse("RULE:^CN=(.*)$/$1")).hasMessageContaining("missing '/'");
        assertThatThrownBy(() -> SslPrincipalMapper.parse("RULE:^CN=(.*$/$1/"))
                .hasMessageContaining("not a regular expression");
        assertThatThrownBy(() -> SslPrincipalMapper.parse("  ")).hasMessageContaining("empty");
    }
}
