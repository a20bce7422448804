package io.tributary.broker.api;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.KafkaPrincipal;
import java.util.Objects;
import org.apache.kafka.common.message.CreateDelegationTokenRequestData;
import org.apache.kafka.common.message.ExpireDelegationTokenResponseData;
import org.apache.kafka.common.message.RenewDelegationTokenResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreateDelegationTokenRequest;
import org.apache.kafka.common.requests.CreateDelegationTokenResponse;
import org.apache.kafka.common.requests.DescribeDelegationTokenResponse;
import org.apache.kafka.common.requests.ExpireDelegationTokenResponse;
import org.apache.kafka.common.requests.RenewDelegationTokenResponse;

/**
 * One of the four delegation-token APIs (CreateDelegationToken 38 v1-3, RenewDelegationToken 39
 * v1-2, ExpireDelegationToken 40 v1-2, DescribeDelegationToken 41 v1-3), answered as a Kafka broker
 * without {@code delegation.token.secret.key} answers them: Tributary has no delegation-token
 * authentication (docs/security.md says why), so every call is refused, with Kafka's two errors in
 * Kafka's order:
 *
 * <ol>
 *   <li>{@code DELEGATION_TOKEN_REQUEST_NOT_ALLOWED} on a connection that did not authenticate
 *       (PLAINTEXT, or TLS without a client certificate: {@code User:ANONYMOUS}); Kafka also refuses
 *       a connection that authenticated with a token, which cannot happen here;
 *   <li>{@code DELEGATION_TOKEN_AUTH_DISABLED} otherwise.
 * </ol>
 *
 * <p>The answers carry what Kafka's do: CreateDelegationToken the owner (the request's, else the
 * caller) and the caller, with no token and timestamps of -1; Renew and Expire an expiry of -1;
 * Describe no tokens. No ACL is checked: Kafka's checks concern existing tokens and owners, and
 * come after the errors above. Advertising the APIs (rather than leaving them out of ApiVersions)
 * lets Kafka's tools ({@code kafka-delegation-tokens.sh}, Admin) report what Kafka would.
 *
 * <p>Thread-safety: stateless.
 */
public final class DelegationTokenHandler implements RequestHandler {

    private final ApiKeys api;

    /** The handler of {@code api}, one of the four delegation-token APIs. */
    public DelegationTokenHandler(ApiKeys api) {
        this.api = Objects.requireNonNull(api, "api");
        switch (api) {
            case CREATE_DELEGATION_TOKEN,
                    RENEW_DELEGATION_TOKEN,
                    EXPIRE_DELEGATION_TOKEN,
                    DESCRIBE_DELEGATION_TOKEN -> {}
            default -> throw new IllegalArgumentException(api + " is not a delegation-token API");
        }
    }

    @Override
    public ApiVersionRange versions() {
        // Kafka 4's brokers serve v1 and up (v0 was removed with the old protocol versions)
        return ApiVersionRange.of(api, 1, api.latestVersion());
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        KafkaPrincipal caller = request.connection().principal();
        Errors error = caller.equals(KafkaPrincipal.ANONYMOUS)
                ? Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED
                : Errors.DELEGATION_TOKEN_AUTH_DISABLED;
        short version = request.header().apiVersion();
        return switch (api) {
            case CREATE_DELEGATION_TOKEN -> {
                CreateDelegationTokenRequestData data =
                        request.body(CreateDelegationTokenRequest.class).data();
                org.apache.kafka.common.security.auth.KafkaPrincipal requester = kafkaPrincipal(caller);
                org.apache.kafka.common.security.auth.KafkaPrincipal owner = data.ownerPrincipalName() == null
                                || data.ownerPrincipalName().isEmpty()
                        ? requester
                        : new org.apache.kafka.common.security.auth.KafkaPrincipal(
                                data.ownerPrincipalType(), data.ownerPrincipalName());
                yield CreateDelegationTokenResponse.prepareResponse(version, 0, error, owner, requester);
            }
            case RENEW_DELEGATION_TOKEN ->
                new RenewDelegationTokenResponse(new RenewDelegationTokenResponseData()
                        .setErrorCode(error.code())
                        .setExpiryTimestampMs(-1));
            case EXPIRE_DELEGATION_TOKEN ->
                new ExpireDelegationTokenResponse(new ExpireDelegationTokenResponseData()
                        .setErrorCode(error.code())
                        .setExpiryTimestampMs(-1));
            case DESCRIBE_DELEGATION_TOKEN -> new DescribeDelegationTokenResponse(version, 0, error);
            default -> throw new IllegalStateException("not a delegation-token API: " + api);
        };
    }

    private static org.apache.kafka.common.security.auth.KafkaPrincipal kafkaPrincipal(KafkaPrincipal principal) {
        return new org.apache.kafka.common.security.auth.KafkaPrincipal(principal.type(), principal.name());
    }
}
