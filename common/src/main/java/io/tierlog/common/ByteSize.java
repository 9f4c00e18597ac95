package io.tierlog.common;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A size in bytes. Parses plain numbers and binary or decimal units ({@code 1GiB}, {@code 512KiB},
 * {@code 10MB}). Immutable.
 */
public record ByteSize(long bytes) implements Comparable<ByteSize> {
    /**
     * Lower-case unit to multiplier: b, and for each prefix k, m, g, t its binary unit (kib, or the
     * bare letter k) and its decimal one (kb).
     */
    private static final Map<String, Long> UNITS = units();

    private static Map<String, Long> units() {
        Map<String, Long> units = new HashMap<>();
        units.put("", 1L);
        units.put("b", 1L);
        String prefixes = "kmgt";
        long decimal = 1;
        for (int i = 0; i < prefixes.length(); i++) {
            String prefix = prefixes.substring(i, i + 1);
            long binary = 1L << (10 * (i + 1));
            decimal *= 1000;
            units.put(prefix, binary);
            units.put(prefix + "ib", binary);
            units.put(prefix + "b", decimal);
        }
        return Map.copyOf(units);
    }

    public ByteSize {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative byte size: " + bytes);
        }
    }

    public static ByteSize ofBytes(long bytes) {
        return new ByteSize(bytes);
    }

    public static ByteSize ofKiB(long k) {
        return new ByteSize(Math.multiplyExact(k, 1024L));
    }

    public static ByteSize ofMiB(long m) {
        return new ByteSize(Math.multiplyExact(m, 1024L * 1024));
    }

    public static ByteSize ofGiB(long g) {
        return new ByteSize(Math.multiplyExact(g, 1024L * 1024 * 1024));
    }

    /** Bytes as an int, for sizes that Kafka's protocol or file format caps at 2 GiB. */
    public int toIntExact() {
        return Math.toIntExact(bytes);
    }

    public static ByteSize parse(String s) {
        String v = s.trim().replace("_", "");
        int i = 0;
        while (i < v.length() && Character.isDigit(v.charAt(i))) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("expected a number of bytes with an optional unit");
        }
        long n = Long.parseLong(v.substring(0, i));
        String unit = v.substring(i).trim().toLowerCase(Locale.ROOT);
        Long mult = UNITS.get(unit);
        if (mult == null) {
            throw new IllegalArgumentException(
                    "unknown unit '" + unit + "' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
        }
        return new ByteSize(Math.multiplyExact(n, mult));
    }

    @Override
    public int compareTo(ByteSize o) {
        return Long.compare(bytes, o.bytes);
    }

    @Override
    public String toString() {
        long b = bytes;
        if (b != 0 && b % (1L << 30) == 0) {
            return (b >> 30) + "GiB";
        }
        if (b != 0 && b % (1L << 20) == 0) {
            return (b >> 20) + "MiB";
        }
        if (b != 0 && b % (1L << 10) == 0) {
            return (b >> 10) + "KiB";
        }
        return Long.toString(b);
    }
}
