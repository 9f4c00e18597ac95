package io.tierlog.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One listener, {@code NAME://host:port} as in Kafka's {@code listeners}: the name is the security
 * protocol ({@code PLAINTEXT}); an empty host or {@code 0.0.0.0} binds every interface; port 0
 * binds any free port. IPv6 hosts are written in brackets. Immutable.
 */
public record Listener(String name, String host, int port) {

    /** Parses a comma-separated listener list. */
    public static List<Listener> parseList(String value) {
        List<Listener> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                out.add(parse(part.trim()));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no listener given");
        }
        return out;
    }

    public static Listener parse(String s) {
        int sep = s.indexOf("://");
        if (sep <= 0) {
            throw new IllegalArgumentException(
                    "listener '" + s + "' is not of the form NAME://host:port");
        }
        String name = s.substring(0, sep).toUpperCase(Locale.ROOT);
        if (!name.equals("PLAINTEXT")) {
            throw new IllegalArgumentException(
                    "listener '" + s + "': only PLAINTEXT is supported, not " + name);
        }
        String hostPort = s.substring(sep + 3);
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("listener '" + s + "' has no port");
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("listener '" + s + "' has a bad port");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("listener '" + s + "': port out of range");
        }
        return new Listener(name, host, port);
    }

    /** Validator form: {@code null} when valid, else the reason. */
    static String validateList(String value) {
        try {
            parseList(value);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** True when the host binds every interface. */
    public boolean wildcard() {
        return host.isEmpty() || host.equals("0.0.0.0") || host.equals("::");
    }

    @Override
    public String toString() {
        return name + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
