package io.tributary.common.security.acl;

import io.tributary.common.security.internal.InternalUsers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The authorization decision for one request over one immutable set of ACLs, with Apache Kafka 4.4's
 * {@code StandardAuthorizer} semantics:
 *
 * <ol>
 *   <li>a super user is allowed everything;
 *   <li>the ACLs that apply are those whose resource pattern matches the resource (a LITERAL of its
 *       name, the LITERAL wildcard {@code *} of its type, every PREFIXED pattern its name starts
 *       with), whose principal is the caller's or {@code User:*}, and whose host is the caller's
 *       address or {@code *};
 *   <li>a DENY of the operation (or of ALL) among them denies, whatever allows;
 *   <li>else an ALLOW of the operation, of ALL, or of an operation implying it ({@link
 *       AclOperation#allowImplies}) allows;
 *   <li>else, when no ACL at all (any principal, any operation) names the resource, {@code
 *       allow.everyone.if.no.acl.found} decides; otherwise the request is denied.
 * </ol>
 *
 * <p>Cost: one hash lookup for the literal name, one for the wildcard, and a walk down a trie of
 * the type's PREFIXED patterns along the name's characters (a binary search per character, ending
 * where no pattern goes on), without allocating; inside a matching pattern only the ACLs of the
 * caller's principal and of {@code User:*} are looked at. The set is built once
 * per ACL change ({@link #of}) and shared by every request thread.
 *
 * <p>Thread-safety: immutable.
 */
public final class AclAuthorizer {

    /**
     * The authorizer's settings.
     *
     * @param superUsers principals allowed everything ({@code super.users})
     * @param allowEveryoneIfNoAclFound whether a resource no ACL names is open to everyone ({@code
     *     allow.everyone.if.no.acl.found}; Kafka's default is false)
     */
    public record Settings(Set<KafkaPrincipal> superUsers, boolean allowEveryoneIfNoAclFound) {
        public Settings {
            superUsers = Set.copyOf(superUsers);
        }

        /**
         * Whether {@code principal} is allowed everything: one of {@link #superUsers}, or one of
         * Tributary's own processes ({@link InternalUsers#isInternal}: a broker fetching as a
         * follower or forwarding group requests, a coordinator reading log end offsets), as Kafka's
         * brokers are listed in {@code super.users}.
         */
        public boolean isSuperUser(KafkaPrincipal principal) {
            return superUsers.contains(principal) || InternalUsers.isInternal(principal);
        }
    }

    /** Why a request was allowed or denied, for the audit log. */
    public enum Reason {
        /** The caller is a super user. */
        SUPER_USER,
        /** A DENY ACL matched ({@link Decision#acl}). */
        DENY_ACL,
        /** An ALLOW ACL matched ({@link Decision#acl}). */
        ALLOW_ACL,
        /** No ACL names the resource; {@code allow.everyone.if.no.acl.found} decided. */
        NO_ACL_FOUND,
        /** ACLs name the resource but none allows the caller this operation. */
        NO_MATCHING_ALLOW
    }

    /**
     * One decision.
     *
     * @param allowed whether the request may go on
     * @param reason why
     * @param acl the ACL that decided, for DENY_ACL and ALLOW_ACL; else null
     */
    public record Decision(boolean allowed, Reason reason, AclBinding acl) {}

    private static final Decision SUPER_USER = new Decision(true, Reason.SUPER_USER, null);
    private static final Decision NO_MATCHING_ALLOW = new Decision(false, Reason.NO_MATCHING_ALLOW, null);

    private final Settings settings;
    private final Decision noAclFound;
    private final Map<AclResourceType, TypeIndex> byType;

    private AclAuthorizer(Settings settings, Map<AclResourceType, TypeIndex> byType) {
        this.settings = settings;
        this.noAclFound = new Decision(settings.allowEveryoneIfNoAclFound(), Reason.NO_ACL_FOUND, null);
        this.byType = byType;
    }

    /**
     * The authorizer over {@code bindings}. Bindings that are not {@link AclBinding#validate valid}
     * are refused: the store never holds one.
     *
     * @throws IllegalArgumentException for an invalid binding
     */
    public static AclAuthorizer of(Collection<AclBinding> bindings, Settings settings) {
        Objects.requireNonNull(settings, "settings");
        Map<AclResourceType, TypeIndex.Builder> builders = new EnumMap<>(AclResourceType.class);
        for (AclBinding binding : bindings) {
            binding.validate().ifPresent(reason -> {
                throw new IllegalArgumentException(reason + ": " + binding);
            });
            builders.computeIfAbsent(binding.resourceType(), t -> new TypeIndex.Builder())
                    .add(binding);
        }
        Map<AclResourceType, TypeIndex> byType = new EnumMap<>(AclResourceType.class);
        builders.forEach((type, builder) -> byType.put(type, builder.build()));
        return new AclAuthorizer(settings, byType);
    }

    /** An authorizer without ACLs. */
    public static AclAuthorizer empty(Settings settings) {
        return of(List.of(), settings);
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Whether {@code principal}, connected from {@code host} (the client's address as text, as
     * {@code InetAddress.getHostAddress()} writes it), may perform {@code operation} on the resource
     * {@code (type, name)}.
     */
    public Decision authorize(
            KafkaPrincipal principal, String host, AclOperation operation, AclResourceType type, String name) {
        if (settings.isSuperUser(principal)) {
            return SUPER_USER;
        }
        TypeIndex index = byType.get(type);
        if (index == null) {
            return noAclFound;
        }
        Search search = new Search(principal, host, operation);
        if (search.check(index.literal.get(name)) || search.check(index.wildcard)) {
            return search.decision();
        }
        // The PREFIXED patterns the name starts with lie on the trie path spelled by its characters.
        PrefixNode node = index.prefixes;
        for (int i = 0; node != null; i++) {
            if (search.check(node.acls)) {
                break;
            }
            node = i < name.length() ? node.child(name.charAt(i)) : null;
        }
        return search.decision();
    }

    /** {@link #authorize}'s answer only. */
    public boolean allowed(
            KafkaPrincipal principal, String host, AclOperation operation, AclResourceType type, String name) {
        return authorize(principal, host, operation, type, name).allowed();
    }

    /**
     * The operations of {@code type}'s {@link AclResourceType#supportedOperations} the caller may
     * perform on {@code name}, as Kafka's authorized-operations bit field: bit {@code code} set for
     * each allowed operation.
     */
    public int authorizedOperations(KafkaPrincipal principal, String host, AclResourceType type, String name) {
        int bits = 0;
        for (AclOperation operation : type.supportedOperations()) {
            if (allowed(principal, host, operation, type, name)) {
                bits |= 1 << operation.code();
            }
        }
        return bits;
    }

    /**
     * Whether the caller may perform {@code operation} on <i>some</i> resource of {@code type}, as
     * Kafka's {@code Authorizer.authorizeByResourceType} decides (used by InitProducerId for an
     * idempotent producer, KIP-679: WRITE on any topic):
     *
     * <ol>
     *   <li>allowed when the check on a made-up literal name ({@value #PROBE_NAME}, Kafka's) allows:
     *       a super user, {@code allow.everyone.if.no.acl.found} with no ACL matching that name, an
     *       ALLOW on the wildcard;
     *   <li>else, among the ACLs of the type for the caller (or {@code User:*}) and its host (or
     *       {@code *}) naming exactly {@code operation} or ALL (no implied operations here, as in
     *       Kafka): a DENY on the literal wildcard denies; an ALLOW on the literal wildcard allows;
     *       a literal or prefixed ALLOW allows unless a DENY dominates it (a literal DENY of the same
     *       literal name, or a prefixed DENY of a prefix of its name, itself included);
     *   <li>else denied.
     * </ol>
     */
    public boolean allowedOnAnyResource(
            KafkaPrincipal principal, String host, AclOperation operation, AclResourceType type) {
        if (allowed(principal, host, operation, type, PROBE_NAME)) {
            return true;
        }
        TypeIndex index = byType.get(type);
        if (index == null) {
            return false;
        }
        AnyResource walk = new AnyResource(principal, host, operation);
        index.literal.forEach((name, acls) -> walk.add(acls, AclPatternType.LITERAL, name));
        walk.add(index.wildcard, AclPatternType.LITERAL, AclBinding.WILDCARD_NAME);
        walk.addPrefixes(index.prefixes, new StringBuilder());
        return walk.allowed();
    }

    /** The literal name {@link #allowedOnAnyResource} checks first (Kafka's). */
    static final String PROBE_NAME = "hardcode";

    /** The ACLs {@link #allowedOnAnyResource} weighs: the caller's, of one operation, by pattern. */
    private static final class AnyResource {
        private final KafkaPrincipal principal;
        private final String host;
        private final AclOperation operation;
        private final Set<String> literalAllows = new HashSet<>();
        private final Set<String> prefixAllows = new HashSet<>();
        private final Set<String> literalDenies = new HashSet<>();
        private final Set<String> prefixDenies = new HashSet<>();

        AnyResource(KafkaPrincipal principal, String host, AclOperation operation) {
            this.principal = principal;
            this.host = host;
            this.operation = operation;
        }

        void add(PatternAcls acls, AclPatternType pattern, String name) {
            if (acls == null) {
                return;
            }
            add(acls.byPrincipal.get(principal), pattern, name);
            if (!principal.equals(KafkaPrincipal.WILDCARD)) {
                add(acls.byPrincipal.get(KafkaPrincipal.WILDCARD), pattern, name);
            }
        }

        private void add(Acl[] acls, AclPatternType pattern, String name) {
            if (acls == null) {
                return;
            }
            for (Acl acl : acls) {
                boolean hostMatches = acl.host.equals(AclBinding.ANY_HOST) || acl.host.equals(host);
                if (!hostMatches || (acl.operation != operation && acl.operation != AclOperation.ALL)) {
                    continue;
                }
                boolean deny = acl.permission == AclPermission.DENY;
                boolean literal = pattern == AclPatternType.LITERAL;
                (literal ? (deny ? literalDenies : literalAllows) : (deny ? prefixDenies : prefixAllows)).add(name);
            }
        }

        void addPrefixes(PrefixNode node, StringBuilder path) {
            if (node == null) {
                return;
            }
            add(node.acls, AclPatternType.PREFIXED, path.toString());
            for (int i = 0; i < node.keys.length; i++) {
                path.append(node.keys[i]);
                addPrefixes(node.children[i], path);
                path.setLength(path.length() - 1);
            }
        }

        boolean allowed() {
            if (literalDenies.contains(AclBinding.WILDCARD_NAME)) {
                return false;
            }
            if (literalAllows.contains(AclBinding.WILDCARD_NAME)) {
                return true;
            }
            for (String name : literalAllows) {
                if (!literalDenies.contains(name) && !deniedByPrefix(name)) {
                    return true;
                }
            }
            for (String name : prefixAllows) {
                if (!deniedByPrefix(name)) {
                    return true;
                }
            }
            return false;
        }

        private boolean deniedByPrefix(String name) {
            for (int end = 1; end <= name.length(); end++) {
                if (prefixDenies.contains(name.substring(0, end))) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The walk over the ACLs of the patterns that match one resource. */
    private final class Search {
        private final KafkaPrincipal principal;
        private final String host;
        private final AclOperation operation;
        private boolean resourceHasAcls;
        private AclBinding allow;
        private AclBinding deny;

        Search(KafkaPrincipal principal, String host, AclOperation operation) {
            this.principal = principal;
            this.host = host;
            this.operation = operation;
        }

        /** Looks at one pattern's ACLs; true once a DENY decided (nothing else can change it). */
        boolean check(PatternAcls acls) {
            if (acls == null) {
                return false;
            }
            resourceHasAcls = true;
            return checkAll(acls.byPrincipal.get(principal))
                    || (!principal.equals(KafkaPrincipal.WILDCARD)
                            && checkAll(acls.byPrincipal.get(KafkaPrincipal.WILDCARD)));
        }

        private boolean checkAll(Acl[] acls) {
            if (acls == null) {
                return false;
            }
            for (Acl acl : acls) {
                if (!acl.host.equals(AclBinding.ANY_HOST) && !acl.host.equals(host)) {
                    continue;
                }
                if (acl.permission == AclPermission.DENY) {
                    if (acl.operation == AclOperation.ALL || acl.operation == operation) {
                        deny = acl.binding;
                        return true;
                    }
                } else if (allow == null && acl.operation.allowImplies(operation)) {
                    allow = acl.binding;
                }
            }
            return false;
        }

        Decision decision() {
            if (deny != null) {
                return new Decision(false, Reason.DENY_ACL, deny);
            }
            if (allow != null) {
                return new Decision(true, Reason.ALLOW_ACL, allow);
            }
            return resourceHasAcls ? NO_MATCHING_ALLOW : noAclFound;
        }
    }

    /** One ACL, its fields unpacked for the check. */
    private record Acl(AclBinding binding, String host, AclOperation operation, AclPermission permission) {}

    /** The ACLs of one resource pattern, by principal. */
    private record PatternAcls(Map<KafkaPrincipal, Acl[]> byPrincipal) {}

    /**
     * A node of the trie of one type's PREFIXED patterns: the ACLs of the pattern spelled by the path
     * to it (null if none ends here), and its children sorted by character.
     */
    private static final class PrefixNode {
        private final PatternAcls acls;
        private final char[] keys;
        private final PrefixNode[] children;

        PrefixNode(PatternAcls acls, char[] keys, PrefixNode[] children) {
            this.acls = acls;
            this.keys = keys;
            this.children = children;
        }

        PrefixNode child(char c) {
            int at = Arrays.binarySearch(keys, c);
            return at >= 0 ? children[at] : null;
        }

        /** The trie of {@code patterns} (sorted by name) whose names extend {@code path}. */
        static PrefixNode build(NavigableMap<String, PatternAcls> patterns, String path) {
            NavigableMap<String, PatternAcls> below = patterns.subMap(path, false, path + Character.MAX_VALUE, true);
            List<Character> keys = new ArrayList<>();
            List<PrefixNode> children = new ArrayList<>();
            String rest = path;
            for (String name : below.keySet()) {
                if (name.length() <= path.length() || (!keys.isEmpty() && name.startsWith(rest))) {
                    continue;
                }
                rest = name.substring(0, path.length() + 1);
                keys.add(name.charAt(path.length()));
                children.add(build(patterns, rest));
            }
            char[] keyArray = new char[keys.size()];
            for (int i = 0; i < keyArray.length; i++) {
                keyArray[i] = keys.get(i);
            }
            return new PrefixNode(patterns.get(path), keyArray, children.toArray(PrefixNode[]::new));
        }
    }

    /** The ACLs of one resource type. */
    private record TypeIndex(Map<String, PatternAcls> literal, PatternAcls wildcard, PrefixNode prefixes) {

        static final class Builder {
            private final Map<String, Map<KafkaPrincipal, List<Acl>>> literal = new HashMap<>();
            private final Map<KafkaPrincipal, List<Acl>> wildcard = new HashMap<>();
            private final Map<String, Map<KafkaPrincipal, List<Acl>>> prefixed = new HashMap<>();

            void add(AclBinding binding) {
                Map<KafkaPrincipal, List<Acl>> pattern;
                if (binding.patternType() == AclPatternType.PREFIXED) {
                    pattern = prefixed.computeIfAbsent(binding.resourceName(), n -> new HashMap<>());
                } else if (binding.resourceName().equals(AclBinding.WILDCARD_NAME)) {
                    pattern = wildcard;
                } else {
                    pattern = literal.computeIfAbsent(binding.resourceName(), n -> new HashMap<>());
                }
                pattern.computeIfAbsent(KafkaPrincipal.parse(binding.principal()), p -> new ArrayList<>())
                        .add(new Acl(binding, binding.host(), binding.operation(), binding.permission()));
            }

            TypeIndex build() {
                NavigableMap<String, PatternAcls> sorted = new TreeMap<>(freeze(prefixed));
                return new TypeIndex(
                        freeze(literal),
                        wildcard.isEmpty() ? null : freezePattern(wildcard),
                        sorted.isEmpty() ? null : PrefixNode.build(sorted, ""));
            }

            private static Map<String, PatternAcls> freeze(Map<String, Map<KafkaPrincipal, List<Acl>>> patterns) {
                Map<String, PatternAcls> frozen = new HashMap<>();
                patterns.forEach((name, acls) -> frozen.put(name, freezePattern(acls)));
                return Map.copyOf(frozen);
            }

            private static PatternAcls freezePattern(Map<KafkaPrincipal, List<Acl>> acls) {
                Map<KafkaPrincipal, Acl[]> byPrincipal = new HashMap<>();
                acls.forEach((principal, list) -> byPrincipal.put(principal, list.toArray(Acl[]::new)));
                return new PatternAcls(Map.copyOf(byPrincipal));
            }
        }
    }
}
