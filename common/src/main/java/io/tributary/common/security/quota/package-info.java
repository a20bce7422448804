/**
 * Kafka's client quotas as values shared by brokers and coordinators: the entity a quota belongs to
 * ({@link io.tributary.common.security.quota.QuotaEntity}: a user, a client id, both, or an IP; each
 * named or the default), the quota keys Kafka knows ({@link
 * io.tributary.common.security.quota.QuotaKey}) and DescribeClientQuotas' filter ({@link
 * io.tributary.common.security.quota.QuotaFilter}).
 *
 * <p>Invariants: a {@code QuotaEntity} is one Kafka accepts (user and client id in any mix, or an IP
 * alone; no empty name); the coordinators store nothing else. Values are Kafka's doubles.
 */
package io.tributary.common.security.quota;
