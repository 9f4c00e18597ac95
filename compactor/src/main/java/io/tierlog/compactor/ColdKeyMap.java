package io.tierlog.compactor;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The bounded key map of a cold compaction pass: for each record key (by its 128-bit MD5 digest, as
 * Kafka's cleaner keys its offset map) the latest offset seen, in a fixed open-addressing table
 * sized from {@code cold.cleaner.dedupe.buffer.size} (24 bytes per slot, filled to at most 3/4).
 * Two keys with the same digest would share a slot (the older value of one could then be dropped in
 * favour of the other's offset): with 128 bits this is as unlikely as in Kafka.
 *
 * <p>Not thread-safe: one pass builds and reads it.
 */
final class ColdKeyMap {
    static final int BYTES_PER_SLOT = 24;

    private final long[] hi;
    private final long[] lo;
    private final long[] offsets;
    private final int mask;
    private final int maxEntries;
    private final MessageDigest md5;
    private int size;

    /** A map within {@code memoryBytes} (at least 1024 slots). */
    ColdKeyMap(long memoryBytes) {
        long slots = Math.max(1024, memoryBytes / BYTES_PER_SLOT);
        int cap = Integer.highestOneBit((int) Math.min(1 << 30, slots));
        hi = new long[cap];
        lo = new long[cap];
        offsets = new long[cap];
        java.util.Arrays.fill(offsets, -1);
        mask = cap - 1;
        maxEntries = cap / 4 * 3;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every JVM", e);
        }
    }

    /** Keys the map can hold. */
    int maxEntries() {
        return maxEntries;
    }

    int size() {
        return size;
    }

    /** Records {@code offset} as the latest of {@code key} (offsets must be put in order). */
    void put(ByteBuffer key, long offset) {
        if (size >= maxEntries) {
            throw new IllegalStateException("cold key map is full (" + maxEntries + " keys)");
        }
        byte[] d = digest(key);
        long h = ByteBuffer.wrap(d).getLong(0);
        long l = ByteBuffer.wrap(d).getLong(8);
        int i = slot(h, l);
        if (offsets[i] < 0) {
            size++;
            hi[i] = h;
            lo[i] = l;
        }
        offsets[i] = offset;
    }

    /** The latest offset of {@code key}, or -1 if the map does not hold it. */
    long latestOffset(ByteBuffer key) {
        byte[] d = digest(key);
        return offsets[slot(ByteBuffer.wrap(d).getLong(0), ByteBuffer.wrap(d).getLong(8))];
    }

    /** The slot holding the digest, or the free slot where it would go (linear probing). */
    private int slot(long h, long l) {
        int i = (int) (h ^ (h >>> 32)) & mask;
        while (offsets[i] >= 0 && (hi[i] != h || lo[i] != l)) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private byte[] digest(ByteBuffer key) {
        md5.update(key.duplicate());
        return md5.digest();
    }
}
