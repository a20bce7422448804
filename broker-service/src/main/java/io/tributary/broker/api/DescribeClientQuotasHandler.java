package io.tributary.broker.api;

import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.quota.QuotaFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.EntryData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.ValueData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;

/**
 * DescribeClientQuotas (API key 48), versions 0 and 1, answered from this broker's cluster image as
 * Kafka's brokers answer it from theirs: every stored entity the filter matches ({@link
 * QuotaFilter}: exact names, defaults, any name; strict or not) with its values. A filter Kafka
 * refuses is answered with its error and message and no entries. The caller's cluster
 * DESCRIBE_CONFIGS is checked before ({@code RequestAuthorizer}).
 *
 * <p>Thread-safety: stateless.
 */
public final class DescribeClientQuotasHandler implements RequestHandler {

    private final MetadataView metadata;

    public DescribeClientQuotasHandler(MetadataView metadata) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
    }

    @Override
    public ApiVersionRange versions() {
        return ApiVersionRange.of(ApiKeys.DESCRIBE_CLIENT_QUOTAS, 0, 1);
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        DescribeClientQuotasRequestData data =
                request.body(DescribeClientQuotasRequest.class).data();
        List<QuotaFilter.Component> components = new ArrayList<>();
        data.components()
                .forEach(c -> components.add(new QuotaFilter.Component(c.entityType(), c.matchType(), c.match())));
        QuotaFilter.Parsed parsed = QuotaFilter.parse(components, data.strict());
        var response = new DescribeClientQuotasResponseData();
        if (parsed.refusal().isPresent()) {
            QuotaFilter.Refusal refusal = parsed.refusal().get();
            Errors error = refusal.error() == QuotaFilter.Error.UNSUPPORTED_VERSION
                    ? Errors.UNSUPPORTED_VERSION
                    : Errors.INVALID_REQUEST;
            return new DescribeClientQuotasResponse(response.setErrorCode(error.code())
                    .setErrorMessage(refusal.message())
                    .setEntries(null));
        }
        List<EntryData> entries = new ArrayList<>();
        metadata.image().clientQuotas().matching(parsed.filter().orElseThrow()).forEach((entity, values) -> {
            List<ValueData> valueData = new ArrayList<>();
            values.forEach(
                    (k, v) -> valueData.add(new ValueData().setKey(k.wireName()).setValue(v)));
            entries.add(new EntryData()
                    .setEntity(ClientQuotaWire.describeEntity(entity))
                    .setValues(valueData));
        });
        return new DescribeClientQuotasResponse(response.setEntries(entries));
    }
}
