package io.tierlog.hot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/** Helpers shared by the hot-tier tests. Stateless. */
final class LogTestSupport {
    private LogTestSupport() {}

    static LogConfig config(Map<String, String> overrides) {
        return LogConfig.from(overrides);
    }

    /**
     * Reads the whole log from its start to the high watermark, in slices of maxBytes. An empty
     * slice below the high watermark ends the read only when no segment holds a batch past the
     * offset (a recovery made the log continue above its last batch).
     */
    static List<RecordBatch> readAll(PartitionLog log, int maxBytes) throws IOException {
        List<RecordBatch> out = new ArrayList<>();
        long offset = log.logStartOffset();
        while (offset < log.highWatermark()) {
            FileSlice s = log.read(offset, maxBytes);
            if (s.isEmpty()) {
                long o = offset;
                if (log.segments().stream()
                        .anyMatch(g -> g.sizeInBytes() > 0 && g.nextOffset() > o)) {
                    throw new AssertionError("empty slice at " + offset);
                }
                break;
            }
            for (RecordBatch b : s.batches()) {
                out.add(b);
            }
            offset = s.nextOffset();
        }
        return out;
    }

    /** A copy of the bytes of a batch with its base offset set to 0 (as the producer sent it). */
    static ByteBuffer withBaseOffsetZero(RecordBatch b) {
        ByteBuffer buf = ByteBuffer.allocate(b.sizeInBytes());
        b.writeTo(buf);
        buf.flip();
        buf.putLong(0, 0L);
        return buf;
    }

    static ByteBuffer copy(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.remaining());
        c.put(b.duplicate());
        c.flip();
        return c;
    }

    static List<Record> records(ByteBuffer batches) {
        List<Record> out = new ArrayList<>();
        for (RecordBatch b : MemoryRecords.readableRecords(batches.duplicate()).batches()) {
            for (Record r : b) {
                out.add(r);
            }
        }
        return out;
    }
}
