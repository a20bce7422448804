package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.protocol.RequestHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.requests.AlterClientQuotasRequest;
import org.apache.kafka.common.requests.AlterClientQuotasResponse;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * AlterClientQuotas and DescribeClientQuotas through their handlers, with kafka-clients' requests
 * and responses: alterations forwarded (the coordinators' checks are {@code QuotaChangesTest}'s),
 * answers from the broker's image by Kafka's filter semantics, and Kafka's refusals of bad filters.
 */
class ClientQuotaHandlersTest {

    private final FakeControlPlane controlPlane = FakeControlPlane.withBrokers(1);
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);
    private final RequestHandler alter =
            new AlterClientQuotasHandler(metadata, controlPlane, AdminApiConfig.defaults());
    private final RequestHandler describe = new DescribeClientQuotasHandler(metadata);

    private static ClientQuotaEntity entity(String... typeAndName) {
        Map<String, String> entries = new HashMap<>();
        for (int i = 0; i < typeAndName.length; i += 2) {
            entries.put(typeAndName[i], typeAndName[i + 1]);
        }
        return new ClientQuotaEntity(entries);
    }

    private static ClientQuotaAlteration set(ClientQuotaEntity entity, String key, Double value) {
        return new ClientQuotaAlteration(entity, List.of(new ClientQuotaAlteration.Op(key, value)));
    }

    private AlterClientQuotasResponse alter(boolean validateOnly, ClientQuotaAlteration... alterations) {
        return Wire.call(alter, new AlterClientQuotasRequest.Builder(List.of(alterations), validateOnly), 1);
    }

    /** Each described entity as "type=name,... {key=value}" (names null for defaults), sorted. */
    private List<String> describe(ClientQuotaFilter filter) {
        DescribeClientQuotasResponse response = Wire.call(describe, new DescribeClientQuotasRequest.Builder(filter), 1);
        assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
        List<String> out = new ArrayList<>();
        for (DescribeClientQuotasResponseData.EntryData e : response.data().entries()) {
            Map<String, String> parts = new TreeMap<>();
            e.entity().forEach(p -> parts.put(p.entityType(), String.valueOf(p.entityName())));
            Map<String, Double> values = new TreeMap<>();
            e.values().forEach(v -> values.put(v.key(), v.value()));
            out.add(parts + " " + values);
        }
        return out.stream().sorted().toList();
    }

    @BeforeEach
    void storeQuotas() {
        AlterClientQuotasResponse response = alter(
                false,
                set(entity("user", "alice"), "producer_byte_rate", 1024.0),
                set(entity("user", "alice", "client-id", "app"), "consumer_byte_rate", 2048.0),
                set(entity("user", null), "producer_byte_rate", 4096.0),
                set(entity("client-id", null), "consumer_byte_rate", 8192.0),
                set(entity("ip", "10.0.0.1"), "connection_creation_rate", 5.0));
        assertThat(response.data().entries())
                .extracting(e -> Errors.forCode(e.errorCode()))
                .containsOnly(Errors.NONE);
    }

    @Test
    void alterationsAreForwardedOnceAndAnsweredAfterThisBrokersImageHasThem() {
        assertThat(controlPlane.writes.get()).isEqualTo(1);
        assertThat(metadata.waits).hasSize(1);
        assertThat(describe(ClientQuotaFilter.all())).hasSize(5);
    }

    @Test
    void filtersMatchExactNamesDefaultsAndAnyNameAsKafkas() {
        assertThat(describe(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntity("user", "alice")))))
                .containsExactly(
                        "{client-id=app, user=alice} {consumer_byte_rate=2048.0}",
                        "{user=alice} {producer_byte_rate=1024.0}");
        assertThat(describe(
                        ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntity("user", "alice")))))
                .containsExactly("{user=alice} {producer_byte_rate=1024.0}");
        assertThat(describe(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofDefaultEntity("user")))))
                .containsExactly("{user=null} {producer_byte_rate=4096.0}");
        assertThat(describe(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntityType("user")))))
                .hasSize(3);
        assertThat(describe(
                        ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntityType("client-id")))))
                .containsExactly("{client-id=null} {consumer_byte_rate=8192.0}");
        assertThat(describe(ClientQuotaFilter.containsOnly(List.of()))).isEmpty();
    }

    @Test
    void aRemovedLastValueRemovesTheEntityAndValidateOnlyWritesNothing() {
        alter(false, set(entity("user", "alice"), "producer_byte_rate", null));
        alter(true, set(entity("user", "bob"), "producer_byte_rate", 1.0));

        assertThat(describe(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntity("user", "alice")))))
                .containsExactly("{client-id=app, user=alice} {consumer_byte_rate=2048.0}");
        assertThat(describe(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntity("user", "bob")))))
                .isEmpty();
    }

    @Test
    void badFiltersGetKafkasErrors() {
        DescribeClientQuotasResponse twice = Wire.call(
                describe,
                new DescribeClientQuotasRequest.Builder(ClientQuotaFilter.contains(List.of(
                        ClientQuotaFilterComponent.ofEntity("user", "a"),
                        ClientQuotaFilterComponent.ofEntity("user", "b")))),
                1);
        DescribeClientQuotasResponse ipAndUser = Wire.call(
                describe,
                new DescribeClientQuotasRequest.Builder(ClientQuotaFilter.contains(List.of(
                        ClientQuotaFilterComponent.ofEntityType("ip"),
                        ClientQuotaFilterComponent.ofEntityType("user")))),
                1);
        DescribeClientQuotasResponse unknown = Wire.call(
                describe,
                new DescribeClientQuotasRequest.Builder(
                        ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntityType("group")))),
                1);

        assertThat(Errors.forCode(twice.data().errorCode())).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(twice.data().errorMessage())
                .isEqualTo("Entity type user cannot appear more than once in the filter.");
        assertThat(Errors.forCode(ipAndUser.data().errorCode())).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(Errors.forCode(unknown.data().errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
        assertThat(unknown.data().errorMessage()).isEqualTo("Unsupported entity type group");
    }

    @Test
    void aControlPlaneFailureAnswersEveryEntryWithItsError() {
        controlPlane.failNext(io.tributary.broker.cluster.ControlPlaneException.Kind.UNAVAILABLE, "electing");

        AlterClientQuotasResponse response = alter(false, set(entity("user", "carol"), "producer_byte_rate", 1.0));

        assertThat(response.data().entries())
                .extracting(e -> Errors.forCode(e.errorCode()))
                .containsExactly(Errors.NOT_CONTROLLER);
    }
}
