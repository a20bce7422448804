package io.tributary.common.security.tls;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Kafka's {@code ssl.principal.mapping.rules} (KIP-371): how the subject of a client certificate
 * (its X.500 distinguished name as RFC 2253 writes it, {@code CN=alice,OU=Users,O=Example}) becomes
 * the principal's name on a TLS listener without SASL.
 *
 * <p>Syntax: a comma-separated list of rules, tried in order, the first that applies wins.
 *
 * <ul>
 *   <li>{@code DEFAULT}: always applies; the name is the whole distinguished name.
 *   <li>{@code RULE:pattern/replacement/} or {@code RULE:pattern/replacement/L} (lower case) or
 *       {@code .../U} (upper case): applies when the Java regular expression {@code pattern} matches
 *       the whole distinguished name; the name is then the distinguished name with the match
 *       replaced by {@code replacement} ({@code $1} for a group), then cased. A {@code /} inside the
 *       pattern or replacement is written {@code \/}; commas inside them belong to the rule (a
 *       distinguished name is full of them), the list's commas come after a rule's last {@code /}
 *       and its optional case letter.
 * </ul>
 *
 * <p>Whitespace around rules is ignored (rules may be written one per line). When no rule applies
 * the connection cannot be given a principal and is refused, as Kafka refuses it; end the list with
 * {@code DEFAULT} to keep the distinguished name instead. The default rules are {@code DEFAULT}.
 * Immutable, thread-safe.
 */
public final class SslPrincipalMapper {

    /** Kafka's default: the distinguished name as it is. */
    public static final SslPrincipalMapper DEFAULT = parse("DEFAULT");

    private final String text;
    private final List<Rule> rules;

    private SslPrincipalMapper(String text, List<Rule> rules) {
        this.text = text;
        this.rules = List.copyOf(rules);
    }

    /** One rule; {@code pattern} null for DEFAULT. */
    private record Rule(Pattern pattern, String replacement, Case casing) {
        Optional<String> apply(String name) {
            if (pattern == null) {
                return Optional.of(name);
            }
            Matcher matcher = pattern.matcher(name);
            if (!matcher.matches()) {
                return Optional.empty();
            }
            String replaced = matcher.replaceAll(replacement);
            return Optional.of(
                    switch (casing) {
                        case AS_IS -> replaced;
                        case LOWER -> replaced.toLowerCase(Locale.ROOT);
                        case UPPER -> replaced.toUpperCase(Locale.ROOT);
                    });
        }
    }

    private enum Case {
        AS_IS,
        LOWER,
        UPPER
    }

    /**
     * The rules written in {@code rules}.
     *
     * @throws IllegalArgumentException naming the position of the first thing that is not a rule,
     *     or a pattern that is not a regular expression
     */
    public static SslPrincipalMapper parse(String rules) {
        List<Rule> parsed = new ArrayList<>();
        int i = 0;
        int n = rules.length();
        while (true) {
            i = skipSpaces(rules, i);
            if (i >= n) {
                break;
            }
            if (rules.startsWith("DEFAULT", i)) {
                parsed.add(new Rule(null, null, Case.AS_IS));
                i += "DEFAULT".length();
            } else if (rules.startsWith("RULE:", i)) {
                i += "RULE:".length();
                StringBuilder pattern = new StringBuilder();
                i = readUntilSlash(rules, i, pattern);
                StringBuilder replacement = new StringBuilder();
                i = readUntilSlash(rules, i, replacement);
                Case casing = Case.AS_IS;
                if (i < n && (rules.charAt(i) == 'L' || rules.charAt(i) == 'U')) {
                    casing = rules.charAt(i) == 'L' ? Case.LOWER : Case.UPPER;
                    i++;
                }
                try {
                    parsed.add(new Rule(Pattern.compile(pattern.toString()), replacement.toString(), casing));
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException(
                            "ssl.principal.mapping.rules: '" + pattern + "' is not a regular expression: "
                                    + e.getDescription(),
                            e);
                }
            } else {
                throw invalid(rules, i);
            }
            i = skipSpaces(rules, i);
            if (i < n && rules.charAt(i) != ',') {
                throw invalid(rules, i);
            }
            i++;
        }
        if (parsed.isEmpty()) {
            throw new IllegalArgumentException(
                    "ssl.principal.mapping.rules is empty: write DEFAULT for Kafka's default");
        }
        return new SslPrincipalMapper(rules.strip(), parsed);
    }

    /**
     * The principal name of a certificate whose subject is {@code distinguishedName}, or empty
     * when no rule applies.
     */
    public Optional<String> name(String distinguishedName) {
        for (Rule rule : rules) {
            Optional<String> name = rule.apply(distinguishedName);
            if (name.isPresent()) {
                return name;
            }
        }
        return Optional.empty();
    }

    /** Reads up to an unescaped '/', unescaping "\/", and returns the index after the slash. */
    private static int readUntilSlash(String rules, int from, StringBuilder out) {
        int i = from;
        while (i < rules.length()) {
            char c = rules.charAt(i);
            if (c == '\\' && i + 1 < rules.length() && rules.charAt(i + 1) == '/') {
                out.append('/');
                i += 2;
            } else if (c == '/') {
                return i + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        throw new IllegalArgumentException(
                "ssl.principal.mapping.rules: a RULE is RULE:pattern/replacement/[LU], missing '/' after '"
                        + rules.substring(from) + "'");
    }

    private static int skipSpaces(String rules, int i) {
        while (i < rules.length() && Character.isWhitespace(rules.charAt(i))) {
            i++;
        }
        return i;
    }

    private static IllegalArgumentException invalid(String rules, int at) {
        return new IllegalArgumentException("ssl.principal.mapping.rules: expected RULE:pattern/replacement/[LU] or"
                + " DEFAULT at position " + at + ": '" + rules.substring(at) + "'");
    }

    @Override
    public String toString() {
        return text;
    }
}
