package io.tributary.broker.quota;

import io.tributary.broker.cluster.ClusterQuotas;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaKey;
import java.util.List;
import java.util.Optional;

/**
 * Which quota applies to a (user, client id) for one key, in Kafka's order of precedence, and which
 * clients share the rate it bounds (Kafka's metric tags): the first of
 *
 * <ol>
 *   <li>user and client id: each (user, client id) alone;
 *   <li>user and the default client id: each (user, client id) alone;
 *   <li>user: all the user's client ids together;
 *   <li>the default user and client id: each (user, client id) alone;
 *   <li>the default user and the default client id: each (user, client id) alone;
 *   <li>the default user: each user, all its client ids together;
 *   <li>client id: each client id, across users;
 *   <li>the default client id: each client id, across users.
 * </ol>
 *
 * <p>Thread-safety: stateless.
 */
public final class QuotaResolver {

    /** The quota that applies and who shares its rate: {@code user} and {@code clientId} are "" when shared. */
    public record Resolved(double bound, String user, String clientId) {}

    private record Step(QuotaEntity entity, boolean byUser, boolean byClient) {}

    private QuotaResolver() {}

    /** The quota for {@code key} that applies to {@code user}'s client {@code clientId}, if any. */
    public static Optional<Resolved> resolve(ClusterQuotas quotas, QuotaKey key, String user, String clientId) {
        if (quotas.byEntity().isEmpty()) {
            return Optional.empty();
        }
        Optional<String> u = Optional.of(user);
        Optional<String> c = Optional.of(clientId);
        Optional<String> none = Optional.empty();
        List<Step> steps = List.of(
                new Step(QuotaEntity.userAndClientId(u, c), true, true),
                new Step(QuotaEntity.userAndClientId(u, none), true, true),
                new Step(QuotaEntity.user(u), true, false),
                new Step(QuotaEntity.userAndClientId(none, c), true, true),
                new Step(QuotaEntity.userAndClientId(none, none), true, true),
                new Step(QuotaEntity.user(none), true, false),
                new Step(QuotaEntity.clientId(c), false, true),
                new Step(QuotaEntity.clientId(none), false, true));
        for (Step step : steps) {
            Optional<Double> bound = quotas.value(step.entity(), key);
            if (bound.isPresent()) {
                return Optional.of(
                        new Resolved(bound.get(), step.byUser() ? user : "", step.byClient() ? clientId : ""));
            }
        }
        return Optional.empty();
    }
}
