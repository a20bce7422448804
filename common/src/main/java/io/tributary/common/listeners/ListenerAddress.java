package io.tributary.common.listeners;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of Kafka's {@code listeners} or {@code advertised.listeners}: {@code NAME://host:port}.
 * The name is upper-cased as Kafka normalises it; an empty host means every interface when bound
 * and this machine's host name when advertised; an IPv6 address is written in brackets ({@code
 * CLIENT://[::1]:9093}); port 0 binds a free port, and advertised means the port bound.
 *
 * @param name the listener's name, upper case ({@code [A-Z0-9_]+})
 * @param host the host or address, without brackets; empty for none
 * @param port 0 to 65535
 */
public record ListenerAddress(String name, String host, int port) {

    private static final Pattern ENTRY =
            Pattern.compile("([A-Za-z0-9_]+)://(\\[[0-9a-fA-F:.%]*]|[^:/\\[\\]]*):([0-9]+)");

    public ListenerAddress {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("a listener port is 0..65535, got " + port);
        }
    }

    /**
     * The entries of a comma-separated list.
     *
     * @param key the setting's name, for the error message
     * @throws IllegalArgumentException naming {@code key} and the entry that is not {@code
     *     NAME://host:port}, or a name given twice
     */
    public static List<ListenerAddress> parseList(String value, String key) {
        List<ListenerAddress> addresses = new ArrayList<>();
        if (value == null || value.isBlank()) {
            return addresses;
        }
        for (String raw : value.split(",")) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            Matcher matcher = ENTRY.matcher(entry);
            if (!matcher.matches()) {
                throw new IllegalArgumentException(
                        ("%s: '%s' is not NAME://host:port (the name letters, digits and '_';"
                                        + " host may be empty, an IPv6 address in brackets)")
                                .formatted(key, entry));
            }
            int port;
            try {
                port = Integer.parseInt(matcher.group(3));
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("%s: the port of '%s' must be 0..65535".formatted(key, entry));
            }
            String host = matcher.group(2);
            if (host.startsWith("[")) {
                host = host.substring(1, host.length() - 1);
            }
            String name = matcher.group(1).toUpperCase(Locale.ROOT);
            if (addresses.stream().anyMatch(a -> a.name().equals(name))) {
                throw new IllegalArgumentException("%s names listener %s twice".formatted(key, name));
            }
            addresses.add(new ListenerAddress(name, host, port));
        }
        return addresses;
    }

    @Override
    public String toString() {
        return name + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
