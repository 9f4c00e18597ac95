package io.tierlog.engine;

import io.tierlog.hot.FileSlice;
import java.util.List;
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
     * is open), whatever the isolation: Fetch's {@code last_stable_offset}.
     */
    long lastStableOffset();

    /**
     * For a {@link Isolation#READ_COMMITTED} read, the aborted transactions whose batches may lie
     * in the returned range (Fetch's {@code aborted_transactions}), by first offset: every aborted
     * transaction with a batch in the range is in it (others' may be too, which a reader ignores);
     * empty for a {@link Isolation#READ_UNCOMMITTED} read or when no batch was returned.
     */
    List<AbortedTransaction> abortedTransactions();

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

    /**
     * Batches of the hot tier.
     *
     * @param slice whole batches, never past the high watermark (nor the last stable offset for a
     *     {@link Isolation#READ_COMMITTED} read)
     */
    record Hot(
            FileSlice slice,
            long startOffset,
            long highWatermark,
            long logStartOffset,
            long lastStableOffset,
            List<AbortedTransaction> abortedTransactions)
            implements TierRead {
        public Hot {
            Objects.requireNonNull(slice, "slice");
            abortedTransactions = List.copyOf(abortedTransactions);
        }

        /** A read with no transaction open (last stable offset = high watermark). */
        public Hot(FileSlice slice, long startOffset, long highWatermark, long logStartOffset) {
            this(slice, startOffset, highWatermark, logStartOffset, highWatermark, List.of());
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
     * Batches of the cold tier. Every cold offset lies below the last stable offset (nothing at or
     * above it is offloaded), so a {@link Isolation#READ_COMMITTED} read needs no cap, only the
     * aborted transactions, which the object itself tells ({@code batch_txn_state}).
     *
     * <p>Contract with {@link ColdReader}: it answers with {@code abortedTransactions} = the
     * aborted runs of the chunk served that hold any offset of {@code [offset read, nextOffset)},
     * each as {@code (producerId, first offset of the run)}, whatever the isolation (cheap, from
     * the decoded chunk); {@link TierReads} then sets the partition's real last stable offset and
     * drops the list for a {@link Isolation#READ_UNCOMMITTED} read.
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
            long logStartOffset,
            long lastStableOffset,
            List<AbortedTransaction> abortedTransactions)
            implements TierRead {
        public Cold {
            Objects.requireNonNull(records, "records");
            Objects.requireNonNull(objectKey, "objectKey");
            abortedTransactions = List.copyOf(abortedTransactions);
        }

        /** Batches with no aborted transaction among them; last stable offset = high watermark. */
        public Cold(
                MemoryRecords records,
                String objectKey,
                long nextOffset,
                long highWatermark,
                long logStartOffset) {
            this(
                    records,
                    objectKey,
                    nextOffset,
                    highWatermark,
                    logStartOffset,
                    highWatermark,
                    List.of());
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
