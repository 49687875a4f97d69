package io.shardingjob.core.registry;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.zookeeper.common.PathUtils;
import org.jspecify.annotations.Nullable;

/**
 * Checks a ZooKeeper connect string before a client is built with it. ZooKeeper's own parser accepts almost anything
 * ({@code not a host:xx} included) and the mistake shows only as a connection that never comes, after the whole
 * connection timeout.
 *
 * <p>The form: entries separated by commas, each {@code host} or {@code host:port}, then an optional chroot path:
 *
 * <ul>
 *   <li>a host is an IPv4 address ({@code 10.0.0.5}), a host name of RFC 1123 labels ({@code zk-1.example.com}), or an
 *       IPv6 address in brackets ({@code [::1]}); a name whose last label is all digits must be an IPv4 address, as RFC
 *       1123 says. Underscores are accepted in names, unlike RFC 1123, because Docker's service and container names
 *       ({@code zoo_1}) have them and resolve;
 *   <li>a port is 1 to 65535; without one ZooKeeper uses 2181;
 *   <li>the chroot starts at the first {@code /}, as ZooKeeper reads it, so it can only follow the last entry, and is
 *       checked by ZooKeeper's own path rules.
 * </ul>
 *
 * Spaces around an entry are ignored, as ZooKeeper ignores them; an empty entry is refused, because ZooKeeper would drop
 * it silently and it usually stands for a host left out.
 */
final class ConnectString {

    static final String EXAMPLE = "e.g. 'zk1:2181,zk2:2181,zk3:2181', '10.0.0.5:2181' or '[::1]:2181', optionally"
            + " followed by a chroot path as in 'zk1:2181,zk2:2181/apps'";
    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?");
    private static final Pattern NUMERIC = Pattern.compile("[0-9]+");
    private static final Pattern IPV4 = Pattern.compile("([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");
    private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");

    /** ZooKeeper's port for an entry that names none. */
    private static final int DEFAULT_PORT = 2181;

    /** An entry as ZooKeeper reads it: an IPv6 address without its brackets. */
    private record Server(String host, int port) {}

    private ConnectString() {}

    /** @throws InvalidRegistrySettingException naming the connect string, the entry at fault and a valid example */
    static void check(String connectString) {
        servers(connectString);
        int slash = connectString.indexOf('/');
        if (slash >= 0) {
            // As ZooKeeper reads it: from the first '/' to the end, untrimmed.
            checkChroot(connectString, connectString.substring(slash));
        }
    }

    /** The first server of a connect string, as ZooKeeper would connect to it; null when the string is not valid. */
    static @Nullable InetSocketAddress firstServer(String connectString) {
        try {
            Server first = servers(connectString).get(0);
            return new InetSocketAddress(first.host(), first.port());
        } catch (IllegalArgumentException notAnAddress) {
            return null;
        }
    }

    private static List<Server> servers(String connectString) {
        int slash = connectString.indexOf('/');
        String hosts = slash < 0 ? connectString : connectString.substring(0, slash);
        if (hosts.isBlank()) {
            throw invalid(connectString, "it names no host before its chroot path");
        }
        return Arrays.stream(hosts.split(",", -1))
                .map(entry -> server(connectString, entry.trim()))
                .toList();
    }

    private static Server server(String connectString, String entry) {
        if (entry.isEmpty()) {
            throw invalid(connectString, "an entry is empty (two commas in a row, or a comma at either end)");
        }
        String host;
        String port;
        if (entry.startsWith("[")) {
            int close = entry.indexOf(']');
            if (close < 0) {
                throw invalid(connectString, entry, "has no ']' closing its IPv6 address");
            }
            host = entry.substring(1, close);
            String rest = entry.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw invalid(
                        connectString,
                        entry,
                        "has '" + rest + "' after its IPv6 address, where only ':' and a port may follow");
            }
            port = rest.isEmpty() ? null : rest.substring(1);
            if (!isIpv6(host)) {
                throw invalid(connectString, entry, "has '[" + host + "]', which is not an IPv6 address");
            }
        } else {
            int colon = entry.indexOf(':');
            if (colon >= 0 && entry.indexOf(':', colon + 1) >= 0) {
                throw invalid(
                        connectString,
                        entry,
                        "has more than one ':'; separate entries with ',' and put an IPv6 address in brackets, as in"
                                + " '[::1]:2181'");
            }
            host = colon < 0 ? entry : entry.substring(0, colon);
            port = colon < 0 ? null : entry.substring(colon + 1);
            if (host.isEmpty()) {
                throw invalid(connectString, entry, "has no host before its port");
            }
            if (!isHost(host)) {
                throw invalid(
                        connectString,
                        entry,
                        "has the host '" + host + "', which is neither an IPv4 address, a host name nor an IPv6"
                                + " address in brackets");
            }
        }
        if (port != null && !isPort(port)) {
            throw invalid(
                    connectString,
                    entry,
                    port.isEmpty()
                            ? "has ':' but no port after it"
                            : "has the port '" + port + "', which is not a number from 1 to 65535");
        }
        return new Server(host, port == null ? DEFAULT_PORT : Integer.parseInt(port));
    }

    private static boolean isHost(String host) {
        String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        if (name.isEmpty() || name.length() > 253) {
            return false;
        }
        String[] labels = name.split("\\.", -1);
        if (NUMERIC.matcher(labels[labels.length - 1]).matches()) {
            // RFC 1123 2.1: a name never ends in a numeric label, so this is meant as an IPv4 address.
            return isIpv4(host);
        }
        return Arrays.stream(labels).allMatch(label -> LABEL.matcher(label).matches());
    }

    private static boolean isIpv4(String host) {
        var octets = IPV4.matcher(host);
        return octets.matches() && IntStream.rangeClosed(1, 4).allMatch(i -> Integer.parseInt(octets.group(i)) <= 255);
    }

    private static boolean isIpv6(String address) {
        if (!IPV6.matcher(address).matches()) {
            return false;
        }
        try {
            // In brackets and of hex digits, ':' and '.' only, the text is parsed as a literal, never looked up.
            InetAddress.getByName("[" + address + "]");
            return true;
        } catch (UnknownHostException ex) {
            return false;
        }
    }

    private static boolean isPort(String port) {
        if (!PORT.matcher(port).matches()) {
            return false;
        }
        int number = Integer.parseInt(port);
        return number >= 1 && number <= 65535;
    }

    private static void checkChroot(String connectString, String chroot) {
        if (chroot.contains(",")) {
            throw invalid(
                    connectString,
                    "the chroot path '" + chroot + "' holds a ','; the chroot comes after the last entry, as in"
                            + " 'zk1:2181,zk2:2181/apps'");
        }
        try {
            PathUtils.validatePath(chroot);
        } catch (IllegalArgumentException ex) {
            throw invalid(
                    connectString,
                    "the chroot path '" + chroot + "' is not a valid ZooKeeper path: " + ex.getMessage());
        }
    }

    private static InvalidRegistrySettingException invalid(String connectString, String entry, String problem) {
        return invalid(connectString, "the entry '" + entry + "' " + problem);
    }

    private static InvalidRegistrySettingException invalid(String connectString, String problem) {
        return new InvalidRegistrySettingException(
                "connectString",
                "Invalid ZooKeeper connect string '" + connectString + "': " + problem
                        + ". Give host or host:port entries" + " separated by commas, " + EXAMPLE);
    }
}
