package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.message.CreateDelegationTokenRequestData;
import org.apache.kafka.common.message.ExpireDelegationTokenRequestData;
import org.apache.kafka.common.message.RenewDelegationTokenRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.CreateDelegationTokenRequest;
import org.apache.kafka.common.requests.CreateDelegationTokenResponse;
import org.apache.kafka.common.requests.DescribeDelegationTokenRequest;
import org.apache.kafka.common.requests.DescribeDelegationTokenResponse;
import org.apache.kafka.common.requests.ExpireDelegationTokenRequest;
import org.apache.kafka.common.requests.ExpireDelegationTokenResponse;
import org.apache.kafka.common.requests.RenewDelegationTokenRequest;
import org.apache.kafka.common.requests.RenewDelegationTokenResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

class DelegationTokenHandlerTest {

    private static final ConnectionInfo ANONYMOUS =
            new ConnectionInfo("c2", new InetSocketAddress("10.0.0.8", 40001), "external");

    private static final byte[] HMAC = "hmac".getBytes(StandardCharsets.UTF_8);

    private static KafkaRequest from(ConnectionInfo connection, AbstractRequest body) {
        return new KafkaRequest(new RequestHeader(body.apiKey(), body.version(), "client", 7), body, connection);
    }

    @Test
    void anAuthenticatedCallerIsToldTokenAuthenticationIsOffWithKafkasAnswerFields() {
        var handler = new DelegationTokenHandler(ApiKeys.CREATE_DELEGATION_TOKEN);
        var request = new CreateDelegationTokenRequest.Builder(
                        new CreateDelegationTokenRequestData().setMaxLifetimeMs(-1))
                .build((short) 3);

        var answer = (CreateDelegationTokenResponse) handler.handle(TestAcls.fromAlice(request));

        assertThat(answer.error()).isEqualTo(Errors.DELEGATION_TOKEN_AUTH_DISABLED);
        assertThat(answer.data().principalName()).isEqualTo("alice");
        assertThat(answer.data().tokenRequesterPrincipalName()).isEqualTo("alice");
        assertThat(answer.data().expiryTimestampMs()).isEqualTo(-1);
        assertThat(answer.data().tokenId()).isEmpty();
    }

    @Test
    void anOwnerNamedInTheRequestIsTheAnswersOwner() {
        var handler = new DelegationTokenHandler(ApiKeys.CREATE_DELEGATION_TOKEN);
        var request = new CreateDelegationTokenRequest.Builder(new CreateDelegationTokenRequestData()
                        .setOwnerPrincipalType("User")
                        .setOwnerPrincipalName("bob")
                        .setMaxLifetimeMs(-1))
                .build((short) 3);

        var answer = (CreateDelegationTokenResponse) handler.handle(TestAcls.fromAlice(request));

        assertThat(answer.data().principalName()).isEqualTo("bob");
        assertThat(answer.data().tokenRequesterPrincipalName()).isEqualTo("alice");
    }

    @Test
    void aConnectionThatDidNotAuthenticateMayNotAskForTokens() {
        var create = new CreateDelegationTokenRequest.Builder(
                        new CreateDelegationTokenRequestData().setMaxLifetimeMs(-1))
                .build((short) 1);
        var renew = new RenewDelegationTokenRequest.Builder(
                        new RenewDelegationTokenRequestData().setHmac(HMAC).setRenewPeriodMs(-1))
                .build((short) 2);
        var expire = new ExpireDelegationTokenRequest.Builder(
                        new ExpireDelegationTokenRequestData().setHmac(HMAC).setExpiryTimePeriodMs(-1))
                .build((short) 2);
        var describe = new DescribeDelegationTokenRequest.Builder(null).build((short) 3);

        assertThat(((CreateDelegationTokenResponse) new DelegationTokenHandler(ApiKeys.CREATE_DELEGATION_TOKEN)
                                .handle(from(ANONYMOUS, create)))
                        .error())
                .isEqualTo(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
        var renewed = (RenewDelegationTokenResponse)
                new DelegationTokenHandler(ApiKeys.RENEW_DELEGATION_TOKEN).handle(from(ANONYMOUS, renew));
        assertThat(renewed.error()).isEqualTo(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
        assertThat(renewed.expiryTimestamp()).isEqualTo(-1);
        var expired = (ExpireDelegationTokenResponse)
                new DelegationTokenHandler(ApiKeys.EXPIRE_DELEGATION_TOKEN).handle(from(ANONYMOUS, expire));
        assertThat(expired.error()).isEqualTo(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
        var described = (DescribeDelegationTokenResponse)
                new DelegationTokenHandler(ApiKeys.DESCRIBE_DELEGATION_TOKEN).handle(from(ANONYMOUS, describe));
        assertThat(described.error()).isEqualTo(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
        assertThat(described.tokens()).isEmpty();
    }

    @Test
    void describeByAnAuthenticatedCallerIsToldTokenAuthenticationIsOff() {
        var describe = new DescribeDelegationTokenRequest.Builder(null).build((short) 3);
        var described = (DescribeDelegationTokenResponse)
                new DelegationTokenHandler(ApiKeys.DESCRIBE_DELEGATION_TOKEN).handle(TestAcls.fromAlice(describe));
        assertThat(described.error()).isEqualTo(Errors.DELEGATION_TOKEN_AUTH_DISABLED);
    }

    @Test
    void servesTheVersionsKafkaFoursBrokersServeAndOnlyTokenApis() {
        assertThat(new DelegationTokenHandler(ApiKeys.CREATE_DELEGATION_TOKEN).versions())
                .isEqualTo(ApiVersionRange.of(ApiKeys.CREATE_DELEGATION_TOKEN, 1, 3));
        assertThat(new DelegationTokenHandler(ApiKeys.RENEW_DELEGATION_TOKEN).versions())
                .isEqualTo(ApiVersionRange.of(ApiKeys.RENEW_DELEGATION_TOKEN, 1, 2));
        assertThatThrownBy(() -> new DelegationTokenHandler(ApiKeys.PRODUCE))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
