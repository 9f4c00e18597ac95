package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import io.tierlog.hot.InvalidBatchException.Kind;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Rewrites appended batches into the codec a topic's {@code compression.type} names, as Kafka's
 * {@code LogValidator} does when the producer's codec differs from the topic's: a batch whose codec
 * type already is the target (whatever its level) is kept byte for byte; any other is rebuilt as
 * one new v2 batch of the same records (offset deltas, timestamps, keys, values and headers kept)
 * with the batch's producer id, epoch, base sequence, transactional flag and partition leader
 * epoch, a fresh CRC, and CreateTime (the log stamps LogAppendTime afterwards where the topic asks
 * for it). An idempotent batch therefore stays one batch with the same sequence range, so
 * deduplication and sequence checks see the same batch before and after conversion.
 *
 * <p>Kafka refuses a recompressed produce request holding more than one batch; this tier converts
 * each batch on its own instead, which keeps every batch's producer fields (the producer path keeps
 * several batches per request too). Conversion decompresses and compresses, so the log never runs
 * it on a thread that must not block ({@link PartitionLog#appendWithoutBlocking} declines it).
 *
 * <p>Stateless apart from a per-thread decompression buffer pool; thread-safe.
 */
final class Recompressor {
    private static final ThreadLocal<BufferSupplier> SUPPLIERS =
            ThreadLocal.withInitial(BufferSupplier::create);

    private Recompressor() {}

    /**
     * Whether some batch of {@code buf} (position to limit, not yet validated) may need converting
     * to {@code target}: reads only the codec bits of each batch header and stops at anything
     * malformed (validation then reports it). Null {@code target} ({@code producer}): never.
     */
    static boolean mayBeNeeded(ByteBuffer buf, Compression target) {
        if (target == null) {
            return false;
        }
        int p = buf.position();
        int end = buf.limit();
        while (end - p >= HEADER_SIZE) {
            if (codec(buf, p) != target.type().id) {
                return true;
            }
            int size = batchSize(buf, p);
            if (size < HEADER_SIZE || size > end - p) {
                return true; // malformed: validation, on a thread that may block, reports it
            }
            p += size;
        }
        return p != end;
    }

    /** Whether a validated batch of {@code vb} is stored with a codec other than {@code target}. */
    static boolean needed(ByteBuffer buf, ValidatedBatches vb, Compression target) {
        if (target == null) {
            return false;
        }
        for (int i = 0; i < vb.count; i++) {
            if (codec(buf, vb.position[i]) != target.type().id) {
                return true;
            }
        }
        return false;
    }

    /**
     * The validated batches of {@code buf} with every batch not already in {@code target}'s codec
     * rebuilt in it, in order, as a new heap buffer (position 0); {@code buf} is left untouched.
     *
     * @throws InvalidBatchException {@code CORRUPT_MESSAGE} when a batch cannot be decompressed
     */
    static ByteBuffer recompress(ByteBuffer buf, ValidatedBatches vb, Compression target) {
        List<ByteBuffer> parts = new ArrayList<>(vb.count);
        int total = 0;
        for (int i = 0; i < vb.count; i++) {
            ByteBuffer batch = buf.duplicate();
            batch.limit(vb.position[i] + vb.size[i]).position(vb.position[i]);
            batch = batch.slice();
            ByteBuffer out = codec(batch, 0) == target.type().id ? batch : convert(batch, target);
            parts.add(out);
            total += out.remaining();
        }
        ByteBuffer result = ByteBuffer.allocate(total);
        for (ByteBuffer part : parts) {
            result.put(part);
        }
        return result.flip();
    }

    private static ByteBuffer convert(ByteBuffer single, Compression target) {
        MutableRecordBatch batch =
                MemoryRecords.readableRecords(single).batches().iterator().next();
        int estimate =
                target.type() == CompressionType.NONE
                        ? Math.max(single.remaining() * 2, 1024)
                        : single.remaining() + 1024;
        MemoryRecordsBuilder builder =
                MemoryRecords.builder(
                        ByteBuffer.allocate(estimate),
                        RecordBatch.MAGIC_VALUE_V2,
                        target,
                        TimestampType.CREATE_TIME,
                        batch.baseOffset(),
                        RecordBatch.NO_TIMESTAMP,
                        batch.producerId(),
                        batch.producerEpoch(),
                        batch.baseSequence(),
                        batch.isTransactional(),
                        batch.partitionLeaderEpoch());
        try (CloseableIterator<Record> records = batch.streamingIterator(SUPPLIERS.get())) {
            while (records.hasNext()) {
                Record r = records.next();
                builder.appendWithOffset(r.offset(), r); // deltas were checked contiguous
            }
        } catch (RuntimeException e) {
            throw new InvalidBatchException(
                    Kind.CORRUPT_MESSAGE, "Cannot decompress batch to recompress it: " + e, e);
        }
        return builder.build().buffer();
    }

    private static int codec(ByteBuffer buf, int p) {
        return buf.getShort(p + ATTRIBUTES_OFFSET) & COMPRESSION_MASK;
    }
}
