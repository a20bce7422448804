package io.tributary.broker.api;

import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestAuthorizer;
import io.tributary.common.security.quota.QuotaEntity;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What AlterClientQuotas and DescribeClientQuotas share: a quota entity on the wire (a list of type
 * and name, a null name for the default), and the audit line of every quota change ({@value
 * RequestAuthorizer#AUDIT_LOGGER}, INFO: principal, host, entity, ops).
 */
final class ClientQuotaWire {

    private static final Logger audit = LoggerFactory.getLogger(RequestAuthorizer.AUDIT_LOGGER);

    private ClientQuotaWire() {}

    /** A stored entity as DescribeClientQuotas answers it. */
    static List<DescribeClientQuotasResponseData.EntityData> describeEntity(QuotaEntity entity) {
        List<DescribeClientQuotasResponseData.EntityData> out = new ArrayList<>();
        entity.parts()
                .forEach((t, n) -> out.add(new DescribeClientQuotasResponseData.EntityData()
                        .setEntityType(t.wireName())
                        .setEntityName(n.orElse(null))));
        return out;
    }

    /** A request's entity as AlterClientQuotas echoes it in its answer. */
    static List<AlterClientQuotasResponseData.EntityData> echoEntity(AlterClientQuotasRequestData.EntryData entry) {
        List<AlterClientQuotasResponseData.EntityData> out = new ArrayList<>();
        entry.entity()
                .forEach(e -> out.add(new AlterClientQuotasResponseData.EntityData()
                        .setEntityType(e.entityType())
                        .setEntityName(e.entityName())));
        return out;
    }

    /** The audit line of one entity's quota change made by {@code request}'s caller. */
    static void auditChange(KafkaRequest request, AlterClientQuotasRequestData.EntryData entry) {
        List<String> entity = new ArrayList<>();
        entry.entity()
                .forEach(e ->
                        entity.add(e.entityType() + "=" + (e.entityName() == null ? "<default>" : e.entityName())));
        List<String> ops = new ArrayList<>();
        entry.ops().forEach(o -> ops.add(o.remove() ? o.key() + " removed" : o.key() + "=" + o.value()));
        audit.info(
                "client quotas altered: principal={} host={} entity={} ops={}",
                request.connection().principal(),
                request.connection().remoteAddress().getAddress().getHostAddress(),
                entity,
                ops);
    }
}
