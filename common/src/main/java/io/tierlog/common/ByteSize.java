package io.tierlog.common;

import java.util.Locale;

/**
 * A size in bytes. Parses plain numbers and binary or decimal units ({@code 1GiB}, {@code 512KiB},
 * {@code 10MB}). Immutable.
 */
public record ByteSize(long bytes) implements Comparable<ByteSize> {

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
        long mult;
        switch (unit) {
            case "":
            case "b":
                mult = 1;
                break;
            case "k":
            case "kib":
                mult = 1L << 10;
                break;
            case "kb":
                mult = 1000L;
                break;
            case "m":
            case "mib":
                mult = 1L << 20;
                break;
            case "mb":
                mult = 1000_000L;
                break;
            case "g":
            case "gib":
                mult = 1L << 30;
                break;
            case "gb":
                mult = 1000_000_000L;
                break;
            case "t":
            case "tib":
                mult = 1L << 40;
                break;
            case "tb":
                mult = 1000_000_000_000L;
                break;
            default:
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
