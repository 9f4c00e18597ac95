package io.tierlog.common;

import java.time.Duration;
import java.util.Locale;

/** Parsers shared by {@link ConfigOption}; stateless. */
final class ConfigParsers {
    private ConfigParsers() {}

    static int parseInt(String s) {
        return Integer.parseInt(s.replace("_", ""));
    }

    static long parseLong(String s) {
        return Long.parseLong(s.replace("_", ""));
    }

    static boolean parseBoolean(String s) {
        switch (s.toLowerCase(Locale.ROOT)) {
            case "true":
                return true;
            case "false":
                return false;
            default:
                throw new IllegalArgumentException("expected true or false");
        }
    }

    static <E extends Enum<E>> E parseEnum(Class<E> type, String s) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(s.replace('-', '_'))) {
                return e;
            }
        }
        StringBuilder allowed = new StringBuilder();
        for (E e : type.getEnumConstants()) {
            if (allowed.length() > 0) {
                allowed.append(", ");
            }
            allowed.append(e.name().toLowerCase(Locale.ROOT));
        }
        throw new IllegalArgumentException("expected one of " + allowed);
    }

    static Duration parseDuration(String s) {
        String v = s.toLowerCase(Locale.ROOT).replace("_", "");
        int i = 0;
        while (i < v.length()
                && (Character.isDigit(v.charAt(i)) || (i == 0 && v.charAt(i) == '-'))) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("expected a number with an optional unit");
        }
        long n = Long.parseLong(v.substring(0, i));
        String unit = v.substring(i).trim();
        switch (unit) {
            case "":
            case "ms":
                return Duration.ofMillis(n);
            case "s":
                return Duration.ofSeconds(n);
            case "m":
            case "min":
                return Duration.ofMinutes(n);
            case "h":
                return Duration.ofHours(n);
            case "d":
                return Duration.ofDays(n);
            default:
                throw new IllegalArgumentException(
                        "unknown unit '" + unit + "' (use ms, s, m, h, d)");
        }
    }

    static String printDuration(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 86_400_000L == 0) {
            return (ms / 86_400_000L) + "d";
        }
        if (ms != 0 && ms % 3_600_000L == 0) {
            return (ms / 3_600_000L) + "h";
        }
        if (ms != 0 && ms % 60_000L == 0) {
            return (ms / 60_000L) + "m";
        }
        if (ms != 0 && ms % 1000L == 0) {
            return (ms / 1000L) + "s";
        }
        return ms + "ms";
    }
}
