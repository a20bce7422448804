package io.tributary.broker.api;

import io.tributary.broker.cluster.ControlPlane;
import io.tributary.broker.cluster.ControlPlane.AclOutcome;
import io.tributary.broker.cluster.ControlPlane.QuotaEntry;
import io.tributary.broker.cluster.ControlPlane.QuotaOp;
import io.tributary.broker.cluster.ControlPlane.QuotaPart;
import io.tributary.broker.cluster.ControlPlaneException;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData.EntryData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterClientQuotasRequest;
import org.apache.kafka.common.requests.AlterClientQuotasResponse;
import org.apache.kafka.common.requests.ApiError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AlterClientQuotas (API key 49), versions 0 and 1: forwarded to the coordinators' control plane, as
 * Kafka's brokers forward it to the controller, after the caller's cluster ALTER_CONFIGS was checked
 * ({@code RequestAuthorizer}; refused, every entry is {@code CLUSTER_AUTHORIZATION_FAILED}). The
 * coordinators' leader runs Kafka's checks ({@code io.tributary.coordinator.security.QuotaChanges})
 * and writes the accepted changes in one Raft command (none with {@code validate_only}); each entry
 * gets its result, in request order. The answer then waits, up to {@link
 * AdminApiConfig#maxMetadataWait()}, until this broker's image has the change. Every entry changed
 * is an audit line. A control-plane failure answers every entry with the mapped error ({@link
 * ControlPlaneErrors}).
 *
 * <p>Thread-safety: stateless.
 */
public final class AlterClientQuotasHandler implements RequestHandler {

    private static final Logger log = LoggerFactory.getLogger(AlterClientQuotasHandler.class);

    private final MetadataView metadata;
    private final ControlPlane controlPlane;
    private final AdminApiConfig config;

    public AlterClientQuotasHandler(MetadataView metadata, ControlPlane controlPlane, AdminApiConfig config) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.controlPlane = Objects.requireNonNull(controlPlane, "controlPlane");
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public ApiVersionRange versions() {
        return ApiVersionRange.of(ApiKeys.ALTER_CLIENT_QUOTAS, 0, 1);
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        AlterClientQuotasRequestData data =
                request.body(AlterClientQuotasRequest.class).data();
        List<QuotaEntry> entries = new ArrayList<>();
        for (AlterClientQuotasRequestData.EntryData e : data.entries()) {
            List<QuotaPart> parts = new ArrayList<>();
            e.entity().forEach(p -> parts.add(new QuotaPart(p.entityType(), p.entityName())));
            List<QuotaOp> ops = new ArrayList<>();
            e.ops().forEach(o -> ops.add(new QuotaOp(o.key(), o.value(), o.remove())));
            entries.add(new QuotaEntry(parts, ops));
        }
        List<EntryData> results = new ArrayList<>();
        try {
            ControlPlane.QuotaAlteration answer =
                    controlPlane.alterClientQuotas(new ControlPlane.QuotaRequest(entries, data.validateOnly()));
            for (int i = 0; i < data.entries().size(); i++) {
                AclOutcome outcome = answer.results().get(i);
                Errors error = ControlPlaneErrors.named(outcome.error());
                AlterClientQuotasRequestData.EntryData entry = data.entries().get(i);
                results.add(new EntryData()
                        .setErrorCode(error.code())
                        .setErrorMessage(outcome.message())
                        .setEntity(ClientQuotaWire.echoEntity(entry)));
                if (error == Errors.NONE && !data.validateOnly()) {
                    ClientQuotaWire.auditChange(request, entry);
                }
            }
            if (!ClusterViews.awaitVersion(metadata, answer.version(), config.maxMetadataWait())) {
                log.warn(
                        "Client quotas written at metadata version {}, which this broker has not reached within {}",
                        answer.version(),
                        config.maxMetadataWait());
            }
        } catch (ControlPlaneException e) {
            ApiError error = ControlPlaneErrors.toApiError(e);
            results.clear();
            data.entries()
                    .forEach(entry -> results.add(new EntryData()
                            .setErrorCode(error.error().code())
                            .setErrorMessage(error.message())
                            .setEntity(ClientQuotaWire.echoEntity(entry))));
        }
        return new AlterClientQuotasResponse(new AlterClientQuotasResponseData().setEntries(results));
    }
}
