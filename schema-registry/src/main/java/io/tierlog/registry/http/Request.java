package io.tierlog.registry.http;

import io.tierlog.registry.SchemaRegistryException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One REST request as the routes see it: the method, the path split into percent-decoded segments
 * (so a subject may hold {@code /} or {@code :} when encoded), the query parameters and the body.
 * Immutable after parsing; used by one thread.
 */
final class Request {
    private final String method;
    private final List<String> segments;
    private final Map<String, String> query;
    private final String body;

    Request(String method, String rawPath, String rawQuery, String body) {
        this.method = method.toUpperCase(Locale.ROOT);
        this.segments = segments(rawPath);
        this.query = query(rawQuery);
        this.body = body;
    }

    String method() {
        return method;
    }

    List<String> segments() {
        return segments;
    }

    int size() {
        return segments.size();
    }

    String segment(int i) {
        return segments.get(i);
    }

    String body() {
        return body;
    }

    /** A query parameter, or null. */
    String param(String name) {
        return query.get(name);
    }

    /** A boolean query parameter ({@code true}, case-insensitive), false when absent. */
    boolean flag(String name) {
        return Boolean.parseBoolean(query.get(name));
    }

    private static List<String> segments(String rawPath) {
        List<String> out = new ArrayList<>();
        for (String s : rawPath.split("/")) {
            if (!s.isEmpty()) {
                out.add(decode(s));
            }
        }
        return out;
    }

    private static Map<String, String> query(String rawQuery) {
        Map<String, String> out = new HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return out;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String k = eq < 0 ? pair : pair.substring(0, eq);
            String v = eq < 0 ? "" : pair.substring(eq + 1);
            out.putIfAbsent(decode(k.replace('+', ' ')), decode(v.replace('+', ' ')));
        }
        return out;
    }

    /**
     * Percent-decoding of a URI component as UTF-8 (a {@code +} in a path segment stays a plus).
     *
     * @throws SchemaRegistryException 400 for a malformed escape
     */
    static String decode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw new SchemaRegistryException(400, "Malformed escape in the URI: " + s);
                }
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw new SchemaRegistryException(400, "Malformed escape in the URI: " + s);
                }
                out.write((hi << 4) | lo);
                i += 2;
            } else {
                int end = s.indexOf('%', i);
                end = end < 0 ? s.length() : end;
                byte[] b = s.substring(i, end).getBytes(StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
                i = end - 1;
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
