package io.tierlog.engine;

import io.tierlog.hot.FileSlice;
import java.util.Objects;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The answer of {@link TieredLog#read}: whole record batches from exactly one tier, plus the
 * partition's offsets as of the read. Either a {@link Hot} zero-copy slice of a segment file (send
 * it with {@code FileChannel.transferTo}/sendfile) or {@link Cold} in-memory batches rebuilt from a
 * Parquet object. Batches are byte-for-byte what the producer's batches became in the hot tier
 * (same base offsets, boundaries, timestamps, producer fields and headers).
 *
 * <p>A reader continues at {@link #nextOffset()}: a cold read ends at the boundary of its object
 * (and before the hot tier's first offset when the tiers overlap), so the next read picks up where
 * this one stopped, with no gap and no duplicate, in whichever tier holds that offset.
 *
 * <p>Immutable, so thread-safe (the slice's channel belongs to the hot tier).
 */
public sealed interface TierRead permits TierRead.Hot, TierRead.Cold {

    /** Which tier answered. */
    enum Tier {
        HOT,
        COLD
    }

    Tier tier();

    /** Total bytes of the batches (0 when empty). */
    int sizeInBytes();

    /** True when no batch was returned (the reader is at the high watermark). */
    default boolean isEmpty() {
        return sizeInBytes() == 0;
    }

    /**
     * Where the next read starts: last offset of the last batch + 1 (the start offset if empty).
     */
    long nextOffset();

    /** The next offset a reader may see (the hot tier's readable end). */
    long highWatermark();

    /** The first offset still stored in either tier. */
    long logStartOffset();

    /**
     * The partition's last stable offset as of the read (= the high watermark when no transaction
     * is open): Fetch's {@code last_stable_offset}.
     */
    default long lastStableOffset() {
        return highWatermark();
    }

    /**
     * For a {@link Isolation#READ_COMMITTED} read, the aborted transactions whose batches may lie
     * in the returned range (Fetch's {@code aborted_transactions}); empty otherwise.
     */
    default java.util.List<AbortedTransaction> abortedTransactions() {
        return java.util.List.of();
    }

    /** The batches as a heap/direct buffer copy (copy path for the hot tier; no copy for cold). */
    MemoryRecords toMemoryRecords() throws java.io.IOException;

    /** As {@link #toMemoryRecords()}, with I/O failures unchecked. */
    default MemoryRecords toMemoryRecordsUnchecked() {
        try {
            return toMemoryRecords();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Batches of the hot tier. */
    record Hot(FileSlice slice, long startOffset, long highWatermark, long logStartOffset)
            implements TierRead {
        public Hot {
            Objects.requireNonNull(slice, "slice");
        }

        @Override
        public Tier tier() {
            return Tier.HOT;
        }

        /** The batches as a region of the segment file, for a zero-copy send. */
        public FileRegion region() {
            return new FileRegion(slice);
        }

        @Override
        public int sizeInBytes() {
            return slice.sizeInBytes();
        }

        @Override
        public long nextOffset() {
            return slice.isEmpty() ? startOffset : slice.nextOffset();
        }

        @Override
        public MemoryRecords toMemoryRecords() throws java.io.IOException {
            return slice.isEmpty()
                    ? MemoryRecords.EMPTY
                    : MemoryRecords.readableRecords(slice.readFully());
        }
    }

    /**
     * Batches of the cold tier.
     *
     * @param records whole batches; never empty
     * @param objectKey the object they came from
     * @param nextOffset last offset of the last batch + 1
     */
    record Cold(
            MemoryRecords records,
            String objectKey,
            long nextOffset,
            long highWatermark,
            long logStartOffset)
            implements TierRead {
        public Cold {
            Objects.requireNonNull(records, "records");
            Objects.requireNonNull(objectKey, "objectKey");
        }

        @Override
        public Tier tier() {
            return Tier.COLD;
        }

        @Override
        public int sizeInBytes() {
            return records.sizeInBytes();
        }

        @Override
        public MemoryRecords toMemoryRecords() {
            return records;
        }
    }
}
