package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import io.tierlog.hot.InvalidBatchException.Kind;
import java.nio.ByteBuffer;
import java.util.Iterator;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Validates the batches of an append request as Kafka's {@code LogValidator} does for v2 batches:
 * magic, CRC-32C, batch length against the buffer, {@code message.max.bytes}, record count against
 * {@code lastOffsetDelta} and against the records actually present, contiguous offset deltas,
 * record framing, timestamps (the batch max timestamp must equal the largest record timestamp;
 * CreateTime records must lie within {@code message.timestamp.before/after.max.ms} of now), and no
 * control batches from clients. Uncompressed records are walked in place without allocation;
 * compressed batches are decompressed (keys and values skipped) to count their records.
 *
 * <p>Never modifies the buffer. Stateless apart from a per-thread decompression buffer pool;
 * thread-safe.
 */
final class BatchValidator {
    private static final ThreadLocal<BufferSupplier> SUPPLIERS =
            ThreadLocal.withInitial(BufferSupplier::create);

    /** Per-thread result holder, reused by every append of the thread (no per-append garbage). */
    private static final ThreadLocal<ValidatedBatches> RESULTS =
            ThreadLocal.withInitial(ValidatedBatches::new);

    private BatchValidator() {}

    /**
     * Validates every batch in {@code buf} (from its position to its limit).
     *
     * @return the batch boundaries and header fields, for the append to use; owned by the calling
     *     thread and overwritten by its next call
     * @throws InvalidBatchException on the first invalid batch
     */
    static ValidatedBatches validate(ByteBuffer buf, LogConfig config, long now) {
        return validate(buf, config, now, false);
    }

    /**
     * As {@link #validate(ByteBuffer, LogConfig, long)}; {@code fromCoordinator} accepts control
     * batches (the log's own transaction markers, Kafka's {@code AppendOrigin.COORDINATOR}).
     */
    static ValidatedBatches validate(
            ByteBuffer buf, LogConfig config, long now, boolean fromCoordinator) {
        ValidatedBatches out = RESULTS.get();
        out.reset();
        int p = buf.position();
        int end = buf.limit();
        if (p == end) {
            throw new InvalidBatchException(Kind.CORRUPT_MESSAGE, "Empty append request");
        }
        while (p < end) {
            int remaining = end - p;
            if (remaining < MAGIC_OFFSET + 1) {
                throw new InvalidBatchException(
                        Kind.CORRUPT_MESSAGE,
                        "Truncated batch header at byte " + (p - buf.position()));
            }
            byte magic = buf.get(p + MAGIC_OFFSET);
            if (magic != MAGIC_V2) {
                throw new InvalidBatchException(
                        Kind.UNSUPPORTED_MAGIC, "Batch magic " + magic + ", only 2 is supported");
            }
            if (remaining < HEADER_SIZE) {
                throw new InvalidBatchException(
                        Kind.CORRUPT_MESSAGE, "Truncated batch header: " + remaining + " bytes");
            }
            int size = batchSize(buf, p);
            if (size < HEADER_SIZE) {
                throw new InvalidBatchException(
                        Kind.CORRUPT_MESSAGE, "Batch length " + size + " below the header size");
            }
            if (size > config.messageMaxBytes()) {
                throw new InvalidBatchException(
                        Kind.MESSAGE_TOO_LARGE,
                        "Batch of "
                                + size
                                + " bytes exceeds max.message.bytes "
                                + config.messageMaxBytes());
            }
            if (size > remaining) {
                throw new InvalidBatchException(
                        Kind.CORRUPT_MESSAGE,
                        "Batch length " + size + " exceeds the " + remaining + " bytes left");
            }
            if (!crcMatches(buf, p, size)) {
                throw new InvalidBatchException(Kind.CORRUPT_MESSAGE, "CRC-32C mismatch");
            }
            validateBatch(buf, p, size, config, now, out, fromCoordinator);
            out.add(p, size, buf);
            p += size;
        }
        return out;
    }

    private static void validateBatch(
            ByteBuffer buf,
            int p,
            int size,
            LogConfig config,
            long now,
            ValidatedBatches scratch,
            boolean fromCoordinator) {
        short attributes = buf.getShort(p + ATTRIBUTES_OFFSET);
        if ((attributes & CONTROL_MASK) != 0 && !fromCoordinator) {
            throw new InvalidBatchException(
                    Kind.INVALID_RECORD, "Control batches cannot be appended by clients");
        }
        int lastOffsetDelta = buf.getInt(p + LAST_OFFSET_DELTA_OFFSET);
        int count = buf.getInt(p + RECORDS_COUNT_OFFSET);
        if (count <= 0) {
            throw new InvalidBatchException(Kind.INVALID_RECORD, "Record count " + count);
        }
        if (lastOffsetDelta != count - 1) {
            throw new InvalidBatchException(
                    Kind.INVALID_RECORD,
                    "lastOffsetDelta " + lastOffsetDelta + " inconsistent with count " + count);
        }
        long baseTimestamp = buf.getLong(p + BASE_TIMESTAMP_OFFSET);
        long maxTimestamp = buf.getLong(p + MAX_TIMESTAMP_OFFSET);
        boolean logAppendTime = (attributes & TIMESTAMP_TYPE_MASK) != 0;
        if (logAppendTime) {
            throw new InvalidBatchException(
                    Kind.INVALID_TIMESTAMP, "Clients must send CreateTime batches");
        }
        long[] minMax;
        if ((attributes & COMPRESSION_MASK) == 0) {
            minMax =
                    walkUncompressed(buf, p, size, count, baseTimestamp, scratch, config.compact());
        } else {
            minMax = walkCompressed(buf, p, size, count, config.compact());
        }
        if (minMax[1] != maxTimestamp) {
            throw new InvalidBatchException(
                    Kind.INVALID_TIMESTAMP,
                    "Batch max timestamp "
                            + maxTimestamp
                            + " differs from the largest record timestamp "
                            + minMax[1]);
        }
        if (config.messageTimestampType()
                == org.apache.kafka.common.record.TimestampType.CREATE_TIME) {
            checkBounds(minMax[0], now, config);
            checkBounds(minMax[1], now, config);
        }
    }

    private static void checkBounds(long ts, long now, LogConfig config) {
        if (ts < 0 && ts != -1) {
            throw new InvalidBatchException(Kind.INVALID_TIMESTAMP, "Negative timestamp " + ts);
        }
        if (ts == -1) {
            return;
        }
        if (now - ts > config.timestampBeforeMaxMs()) {
            throw new InvalidBatchException(
                    Kind.INVALID_TIMESTAMP,
                    "Timestamp " + ts + " is older than message.timestamp.before.max.ms");
        }
        if (ts - now > config.timestampAfterMaxMs()) {
            throw new InvalidBatchException(
                    Kind.INVALID_TIMESTAMP,
                    "Timestamp " + ts + " is ahead of message.timestamp.after.max.ms");
        }
    }

    /**
     * Walks the uncompressed records in place: length, attributes, timestamp delta, offset delta
     * (must be 0..count-1 in order), key, value, headers; each record must end exactly at its
     * declared length and the last one at the batch end. Returns {min, max} record timestamp.
     */
    private static long[] walkUncompressed(
            ByteBuffer buf,
            int p,
            int size,
            int count,
            long baseTimestamp,
            ValidatedBatches scratch,
            boolean compacted) {
        int end = p + size;
        int[] pos = scratch.cursor;
        pos[0] = p + RECORDS_OFFSET;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        try {
            for (int i = 0; i < count; i++) {
                int length = Varints.readVarint(buf, pos, end);
                int recordStart = pos[0];
                int recordEnd = recordStart + length;
                if (length < 1 || recordEnd > end || recordEnd < recordStart) {
                    throw invalid("Record " + i + " length " + length + " exceeds the batch");
                }
                pos[0]++; // attributes
                long ts = baseTimestamp + Varints.readVarlong(buf, pos, recordEnd);
                int offsetDelta = Varints.readVarint(buf, pos, recordEnd);
                if (offsetDelta != i) {
                    throw invalid("Record " + i + " has offset delta " + offsetDelta);
                }
                if (skipBytes(buf, pos, recordEnd) < 0 && compacted) { // key
                    throw keyless();
                }
                skipBytes(buf, pos, recordEnd); // value
                int headers = Varints.readVarint(buf, pos, recordEnd);
                if (headers < 0) {
                    throw invalid("Negative header count in record " + i);
                }
                for (int h = 0; h < headers; h++) {
                    int keyLen = Varints.readVarint(buf, pos, recordEnd);
                    if (keyLen < 0) {
                        throw invalid("Null header key in record " + i);
                    }
                    advance(pos, keyLen, recordEnd);
                    skipBytes(buf, pos, recordEnd);
                }
                if (pos[0] != recordEnd) {
                    throw invalid("Record " + i + " framing does not match its length");
                }
                min = Math.min(min, ts);
                max = Math.max(max, ts);
            }
        } catch (IndexOutOfBoundsException e) {
            throw invalid("Record runs past the batch end");
        }
        if (pos[0] != end) {
            throw invalid((end - pos[0]) + " bytes after the last record");
        }
        long[] minMax = scratch.minMax;
        minMax[0] = min;
        minMax[1] = max;
        return minMax;
    }

    /** Skips a length-prefixed field; returns its length (-1: null). */
    private static int skipBytes(ByteBuffer buf, int[] pos, int limit) {
        int len = Varints.readVarint(buf, pos, limit);
        if (len < -1) {
            throw invalid("Negative length " + len);
        }
        if (len > 0) {
            advance(pos, len, limit);
        }
        return len;
    }

    /**
     * Kafka's {@code LogValidator.validateKey}: the cleaner keeps the latest record per key, so a
     * compacted topic refuses a record without one (INVALID_RECORD, Kafka's message).
     */
    private static InvalidBatchException keyless() {
        return new InvalidBatchException(
                Kind.INVALID_RECORD, "Compacted topic cannot accept message without key");
    }

    private static void advance(int[] pos, int n, int limit) {
        if (n > limit - pos[0]) {
            throw invalid("Field runs past its record");
        }
        pos[0] += n;
    }

    private static long[] walkCompressed(
            ByteBuffer buf, int p, int size, int count, boolean compacted) {
        ByteBuffer slice = buf.duplicate();
        slice.limit(p + size).position(p);
        slice = slice.slice();
        MutableRecordBatch batch = MemoryRecords.readableRecords(slice).batches().iterator().next();
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        long base = batch.baseOffset();
        int n = 0;
        try (CloseableIterator<Record> it = batch.skipKeyValueIterator(SUPPLIERS.get())) {
            Iterator<Record> records = it;
            while (records.hasNext()) {
                Record r = records.next();
                if (r.offset() - base != n) {
                    throw invalid("Record " + n + " has offset delta " + (r.offset() - base));
                }
                if (compacted && !r.hasKey()) {
                    throw keyless();
                }
                min = Math.min(min, r.timestamp());
                max = Math.max(max, r.timestamp());
                n++;
            }
        } catch (InvalidBatchException e) {
            throw e;
        } catch (org.apache.kafka.common.InvalidRecordException e) {
            throw new InvalidBatchException(Kind.INVALID_RECORD, e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new InvalidBatchException(
                    Kind.CORRUPT_MESSAGE, "Cannot decompress batch: " + e, e);
        }
        if (n != count) {
            throw invalid("Batch declares " + count + " records but holds " + n);
        }
        return new long[] {min, max};
    }

    private static InvalidBatchException invalid(String message) {
        return new InvalidBatchException(Kind.INVALID_RECORD, message);
    }
}
