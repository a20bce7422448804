package io.tributary.broker.api;

import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.ScramUsers;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.sasl.ScramCredentialData;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData.UserName;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.CredentialInfo;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsResponse;

/**
 * DescribeUserScramCredentials (API key 50), version 0, answered from this broker's cluster image as
 * Kafka's brokers answer it from theirs: no users named (null or empty) describes every user with a
 * credential, in name order; a user named twice is {@code DUPLICATE_RESOURCE} ("Cannot describe SCRAM
 * credentials for the same user twice in a single request: u"), once per user; a user without a
 * credential is {@code RESOURCE_NOT_FOUND} ("Attempt to describe a user credential that does not
 * exist: u"); otherwise each mechanism with its iterations, never a key or salt.
 *
 * <p>Thread-safety: stateless.
 */
public final class DescribeUserScramCredentialsHandler implements RequestHandler {

    private final MetadataView metadata;

    public DescribeUserScramCredentialsHandler(MetadataView metadata) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
    }

    @Override
    public ApiVersionRange versions() {
        return ApiVersionRange.of(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 0);
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        DescribeUserScramCredentialsRequestData data =
                request.body(DescribeUserScramCredentialsRequest.class).data();
        ScramUsers scram = metadata.image().scramCredentials();
        Map<String, Boolean> asked = new LinkedHashMap<>(); // user -> named twice
        if (data.users() == null || data.users().isEmpty()) {
            scram.users().keySet().forEach(user -> asked.put(user, false));
        } else {
            for (UserName user : data.users()) {
                asked.merge(user.name(), false, (first, again) -> true);
            }
        }
        List<DescribeUserScramCredentialsResult> results = new ArrayList<>();
        asked.forEach((user, twice) -> {
            var result = new DescribeUserScramCredentialsResult().setUser(user);
            Map<Integer, ScramCredentialData> byMechanism = scram.users().get(user);
            if (twice) {
                result.setErrorCode(Errors.DUPLICATE_RESOURCE.code())
                        .setErrorMessage(
                                "Cannot describe SCRAM credentials for the same user twice in a single request: "
                                        + user);
            } else if (byMechanism == null || byMechanism.isEmpty()) {
                result.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                        .setErrorMessage("Attempt to describe a user credential that does not exist: " + user);
            } else {
                List<CredentialInfo> infos = new ArrayList<>();
                byMechanism.forEach((mechanism, c) -> infos.add(
                        new CredentialInfo().setMechanism(mechanism.byteValue()).setIterations(c.iterations())));
                result.setCredentialInfos(infos);
            }
            results.add(result);
        });
        return new DescribeUserScramCredentialsResponse(
                new DescribeUserScramCredentialsResponseData().setResults(results));
    }
}
