package io.tierlog.hot;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The cleaner's map from a record key to the latest offset of that key in the dirty section, as
 * Kafka's {@code SkimpyOffsetMap}: keys are not stored, only their 16-byte MD5 hash, in an
 * open-addressing table of fixed memory ({@code log.cleaner.dedupe.buffer.size} shared by the
 * threads), so a map holds about {@code memory / 24} keys whatever their size. Two keys with the
 * same MD5 would share an entry (as in Kafka; the chance is negligible).
 *
 * <p>Layout: one {@code long[]} of three longs per slot: hash high, hash low, offset + 1 (0 marks
 * an empty slot). Linear probing from the slot the hash names.
 *
 * <p>Not thread-safe: each cleaner thread owns one.
 */
final class OffsetMap {
    /** Bytes per slot: the hash and the offset. */
    static final int BYTES_PER_ENTRY = 24;

    /** Kafka's {@code log.cleaner.io.buffer.load.factor} default: beyond it probing gets long. */
    static final double LOAD_FACTOR = 0.9;

    private final long[] table;
    private final int slots;
    private final MessageDigest md5;
    private final byte[] hash = new byte[16];
    private int entries;
    private long latestOffset = -1;
    private long lookups;
    private long probes;

    OffsetMap(long memoryBytes) {
        long n = Math.max(1, memoryBytes / BYTES_PER_ENTRY);
        this.slots = (int) Math.min(n, (Integer.MAX_VALUE - 8) / 3);
        this.table = new long[slots * 3];
        try {
            this.md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every JVM", e);
        }
    }

    int slots() {
        return slots;
    }

    /** Entries the map takes before the cleaner stops adding (slots times the load factor). */
    int maxEntries() {
        return (int) (slots * LOAD_FACTOR);
    }

    int size() {
        return entries;
    }

    boolean isFull() {
        return entries >= maxEntries();
    }

    /** The largest offset put since the last clear, or -1. */
    long latestOffset() {
        return latestOffset;
    }

    /** Share of the slots in use (Kafka's buffer utilization). */
    double utilization() {
        return (double) entries / slots;
    }

    void clear() {
        Arrays.fill(table, 0L);
        entries = 0;
        latestOffset = -1;
    }

    /** Records {@code offset} as the latest of {@code key} (offsets are put in ascending order). */
    void put(ByteBuffer key, long offset) {
        digest(key);
        long h1 = high();
        long h2 = low();
        int slot = find(h1, h2);
        int i = slot * 3;
        if (table[i + 2] == 0) {
            table[i] = h1;
            table[i + 1] = h2;
            entries++;
        }
        table[i + 2] = offset + 1;
        latestOffset = offset;
    }

    /** The latest offset of {@code key}, or -1 when the map does not hold it. */
    long get(ByteBuffer key) {
        digest(key);
        int slot = find(high(), low());
        return table[slot * 3 + 2] - 1;
    }

    /** The slot holding the hash, or the empty slot where it would go. */
    private int find(long h1, long h2) {
        lookups++;
        int slot = (int) Long.remainderUnsigned(h1, slots);
        while (true) {
            int i = slot * 3;
            if (table[i + 2] == 0 || (table[i] == h1 && table[i + 1] == h2)) {
                return slot;
            }
            probes++;
            slot = slot + 1 == slots ? 0 : slot + 1;
        }
    }

    private void digest(ByteBuffer key) {
        md5.update(key.duplicate());
        try {
            md5.digest(hash, 0, 16);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    private long high() {
        return ByteBuffer.wrap(hash, 0, 8).getLong();
    }

    private long low() {
        return ByteBuffer.wrap(hash, 8, 8).getLong();
    }

    /** Average probes per lookup beyond the first (how crowded the table is). */
    double collisionRate() {
        return lookups == 0 ? 0 : (double) probes / lookups;
    }
}
