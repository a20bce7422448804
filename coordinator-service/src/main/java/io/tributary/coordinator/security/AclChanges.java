package io.tributary.coordinator.security;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.acl.AclBindingFilter;
import io.tributary.common.security.acl.AclResourceType;
import io.tributary.coordinator.metadata.AclSet;
import io.tributary.coordinator.metadata.MetadataCommand.CreateAcls;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteAcls;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's CreateAcls (API 30) and DeleteAcls (API 31) as its controller answers them, after the
 * cluster ALTER check the broker made: which ACLs a request writes and each creation's or filter's
 * result. Run by the coordinators' leader on its latest image; what is accepted becomes one {@link
 * CreateAcls} or {@link DeleteAcls} command (all or none committed).
 *
 * <p>A creation, in Kafka's order of checks (the broker's, then the controller's):
 *
 * <ol>
 *   <li>a CLUSTER resource not named {@code kafka-cluster}: {@code INVALID_REQUEST} "The only valid
 *       name for the CLUSTER resource is kafka-cluster" (a PREFIXED {@code kafka-cluster} is
 *       accepted, as Kafka does);
 *   <li>an empty name: "Invalid empty resource name";
 *   <li>an unknown or indefinite resource type, pattern type, operation or permission, a principal
 *       without a colon, an empty host: {@link AclBinding#validate}'s message, {@code
 *       INVALID_REQUEST};
 *   <li>a CIDR host ({@code 10.0.0.0/8}, Kafka 4.4's KIP-1276): {@code UNSUPPORTED_VERSION}, Kafka's
 *       answer below metadata version 4.4-IV1: Tributary matches hosts literally;
 *   <li>an ACL that is neither stored nor earlier in the request, when {@link #maxAcls} would be
 *       passed: {@code POLICY_VIOLATION} (Tributary's bound).
 * </ol>
 *
 * Any other combination is accepted as Kafka accepts it (an operation a resource type does not
 * support, a PREFIXED {@code *}, a principal type other than {@code User}); an ACL already stored,
 * or twice in the request, is a success written once.
 *
 * <p>A deletion filter with an unknown code is {@code INVALID_REQUEST} ({@link
 * AclBindingFilter#invalidReason}); every other filter answers every stored ACL it matches, an ACL
 * matched by several filters in each of their answers (as Kafka 4.4 answers), and each is deleted
 * once.
 *
 * <p>Thread-safety: immutable.
 */
public final class AclChanges {

    /** Kafka's message for a CIDR host below metadata version 4.4-IV1. */
    static final String CIDR_UNSUPPORTED = "CIDR-based ACL host patterns require metadata version 4.4-IV1 or higher.";

    /** One creation's or filter's outcome: {@link Errors#NONE} with no message, or an error and its message. */
    public record Outcome(Errors error, String message) {
        public static final Outcome NONE = new Outcome(Errors.NONE, null);

        public Outcome {
            Objects.requireNonNull(error, "error");
        }
    }

    /** CreateAcls' results, in request order, and the command when something new is to be stored. */
    public record CreatePlan(List<Outcome> results, Optional<CreateAcls> command) {
        public CreatePlan {
            results = List.copyOf(results);
            Objects.requireNonNull(command, "command");
        }
    }

    /** One filter's result: its outcome and the ACLs it matched (none when it failed). */
    public record FilterResult(Outcome outcome, List<AclBinding> matched) {
        public FilterResult {
            Objects.requireNonNull(outcome, "outcome");
            matched = List.copyOf(matched);
        }
    }

    /** DeleteAcls' results, in filter order, and the command when something is to be deleted. */
    public record DeletePlan(List<FilterResult> results, Optional<DeleteAcls> command) {
        public DeletePlan {
            results = List.copyOf(results);
            Objects.requireNonNull(command, "command");
        }
    }

    private final int maxAcls;

    /** @param maxAcls the most ACLs stored at once ({@code tributary.coordinator.metadata.max-acls}) */
    public AclChanges(int maxAcls) {
        if (maxAcls < 1) {
            throw new IllegalArgumentException("maxAcls must be 1 or more, got " + maxAcls);
        }
        this.maxAcls = maxAcls;
    }

    /** The most ACLs stored at once. */
    public int maxAcls() {
        return maxAcls;
    }

    /** The plan for a CreateAcls against the ACLs stored now. */
    public CreatePlan planCreate(AclSet stored, List<AclBinding> creations) {
        List<Outcome> results = new ArrayList<>(creations.size());
        Set<AclBinding> accepted = new LinkedHashSet<>();
        int size = stored.size();
        for (AclBinding acl : creations) {
            Optional<Outcome> refusal = check(acl);
            if (refusal.isEmpty() && !stored.contains(acl) && !accepted.contains(acl)) {
                if (size >= maxAcls) {
                    refusal = Optional.of(new Outcome(
                            Errors.POLICY_VIOLATION, "%d ACLs are stored; the limit is %d".formatted(size, maxAcls)));
                } else {
                    size++;
                    accepted.add(acl);
                }
            }
            results.add(refusal.orElse(Outcome.NONE));
        }
        return new CreatePlan(
                results, accepted.isEmpty() ? Optional.empty() : Optional.of(new CreateAcls(List.copyOf(accepted))));
    }

    /** The plan for a DeleteAcls against the ACLs stored now. */
    public DeletePlan planDelete(AclSet stored, List<AclBindingFilter> filters) {
        List<FilterResult> results = new ArrayList<>(filters.size());
        Set<AclBinding> deleted = new LinkedHashSet<>();
        for (AclBindingFilter filter : filters) {
            String invalid = filter.invalidReason();
            if (invalid != null) {
                results.add(new FilterResult(new Outcome(Errors.INVALID_REQUEST, invalid), List.of()));
                continue;
            }
            List<AclBinding> matched = stored.matching(filter);
            deleted.addAll(matched);
            results.add(new FilterResult(Outcome.NONE, matched));
        }
        return new DeletePlan(
                results, deleted.isEmpty() ? Optional.empty() : Optional.of(new DeleteAcls(List.copyOf(deleted))));
    }

    /** Kafka's per-creation checks, in its order; empty when the ACL may be stored. */
    static Optional<Outcome> check(AclBinding acl) {
        if (acl.resourceType() == AclResourceType.CLUSTER && !AclResourceType.CLUSTER_NAME.equals(acl.resourceName())) {
            return invalid("The only valid name for the CLUSTER resource is " + AclResourceType.CLUSTER_NAME);
        }
        if (acl.resourceName() != null && acl.resourceName().isEmpty()) {
            return invalid("Invalid empty resource name");
        }
        Optional<String> reason = acl.validate();
        if (reason.isPresent()) {
            return invalid(reason.get());
        }
        if (acl.host().contains("/")) {
            return Optional.of(new Outcome(Errors.UNSUPPORTED_VERSION, CIDR_UNSUPPORTED));
        }
        return Optional.empty();
    }

    private static Optional<Outcome> invalid(String message) {
        return Optional.of(new Outcome(Errors.INVALID_REQUEST, message));
    }
}
