package io.tierlog.hot;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Byte layout of a Kafka v2 record batch (as {@code DefaultRecordBatch}), read and patched in place
 * by the hot tier without object allocation. All fields big-endian:
 *
 * <pre>
 *   BASE_OFFSET             int64   first offset (assigned by the log; outside the CRC)
 *   LENGTH                  int32   bytes after this field (batch size - 12)
 *   PARTITION_LEADER_EPOCH  int32   (outside the CRC)
 *   MAGIC                   int8    2
 *   CRC                     uint32  CRC-32C of ATTRIBUTES .. end of batch
 *   ATTRIBUTES              int16   bits 0-2 codec, 3 timestamp type (1 = LogAppendTime),
 *                                   4 transactional, 5 control, 6 delete horizon
 *   LAST_OFFSET_DELTA       int32   record count - 1
 *   BASE_TIMESTAMP          int64
 *   MAX_TIMESTAMP           int64
 *   PRODUCER_ID             int64   -1 when not idempotent
 *   PRODUCER_EPOCH          int16
 *   BASE_SEQUENCE           int32
 *   RECORDS_COUNT           int32
 *   RECORDS                 ...     records, possibly compressed as a whole
 * </pre>
 *
 * <p>Stateless; thread-safe.
 */
final class RecordBatchLayout {
    static final int BASE_OFFSET_OFFSET = 0;
    static final int LENGTH_OFFSET = BASE_OFFSET_OFFSET + 8;
    static final int LOG_OVERHEAD = LENGTH_OFFSET + 4;
    static final int PARTITION_LEADER_EPOCH_OFFSET = LOG_OVERHEAD;
    static final int MAGIC_OFFSET = PARTITION_LEADER_EPOCH_OFFSET + 4;
    static final int CRC_OFFSET = MAGIC_OFFSET + 1;
    static final int ATTRIBUTES_OFFSET = CRC_OFFSET + 4;
    static final int LAST_OFFSET_DELTA_OFFSET = ATTRIBUTES_OFFSET + 2;
    static final int BASE_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + 4;
    static final int MAX_TIMESTAMP_OFFSET = BASE_TIMESTAMP_OFFSET + 8;
    static final int PRODUCER_ID_OFFSET = MAX_TIMESTAMP_OFFSET + 8;
    static final int PRODUCER_EPOCH_OFFSET = PRODUCER_ID_OFFSET + 8;
    static final int BASE_SEQUENCE_OFFSET = PRODUCER_EPOCH_OFFSET + 2;
    static final int RECORDS_COUNT_OFFSET = BASE_SEQUENCE_OFFSET + 4;
    static final int RECORDS_OFFSET = RECORDS_COUNT_OFFSET + 4;
    static final int HEADER_SIZE = RECORDS_OFFSET;

    static final byte MAGIC_V2 = 2;
    static final int COMPRESSION_MASK = 0x07;
    static final int TIMESTAMP_TYPE_MASK = 0x08;
    static final int TRANSACTIONAL_MASK = 0x10;
    static final int CONTROL_MASK = 0x20;

    private static final ThreadLocal<CRC32C> CRCS = ThreadLocal.withInitial(CRC32C::new);

    private RecordBatchLayout() {}

    /** CRC-32C of {@code buf[from, to)} (absolute indexes), not touching the buffer's position. */
    static long crc32c(ByteBuffer buf, int from, int to) {
        CRC32C crc = CRCS.get();
        crc.reset();
        ByteBuffer d = buf.duplicate();
        d.limit(to).position(from);
        crc.update(d);
        return crc.getValue();
    }

    /** Stored CRC of the batch at absolute index {@code p}, unsigned. */
    static long storedCrc(ByteBuffer buf, int p) {
        return buf.getInt(p + CRC_OFFSET) & 0xffffffffL;
    }

    /** Recomputes and stores the CRC of the batch at {@code p} of {@code size} bytes. */
    static void writeCrc(ByteBuffer buf, int p, int size) {
        buf.putInt(p + CRC_OFFSET, (int) crc32c(buf, p + ATTRIBUTES_OFFSET, p + size));
    }

    static int batchSize(ByteBuffer buf, int p) {
        return buf.getInt(p + LENGTH_OFFSET) + LOG_OVERHEAD;
    }

    static long lastOffset(ByteBuffer buf, int p) {
        return buf.getLong(p + BASE_OFFSET_OFFSET) + buf.getInt(p + LAST_OFFSET_DELTA_OFFSET);
    }

    /** True when the batch at {@code p} of {@code size} bytes has a matching CRC. */
    static boolean crcMatches(ByteBuffer buf, int p, int size) {
        return storedCrc(buf, p) == crc32c(buf, p + ATTRIBUTES_OFFSET, p + size);
    }
}
