package io.tierlog.cold;

import static io.tierlog.cold.ColdLayout.*;

import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.header.Header;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Writes {@link ColdRow}s straight into parquet-mr's {@link RecordConsumer} (no intermediate Group
 * objects), field by field in the order of {@link ColdLayout#SCHEMA}. The file key-value metadata
 * is supplied at the end, once the offset and time ranges are known.
 *
 * <p>Not thread-safe: owned by one {@code ParquetWriter}.
 */
final class ColdRowWriteSupport extends WriteSupport<ColdRow> {
    private RecordConsumer out;
    private Map<String, String> finalMetadata = Map.of();

    void finalMetadata(Map<String, String> metadata) {
        this.finalMetadata = metadata;
    }

    @Override
    public WriteContext init(Configuration configuration) {
        return new WriteContext(SCHEMA, Map.of());
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
        return new WriteContext(SCHEMA, Map.of());
    }

    @Override
    public String getName() {
        return "tierlog";
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
        this.out = recordConsumer;
    }

    @Override
    public void write(ColdRow row) {
        RecordConsumer c = out;
        c.startMessage();
        longField(c, OFFSET, F_OFFSET, row.offset);
        longField(c, TIMESTAMP, F_TIMESTAMP, Math.multiplyExact(row.timestamp, 1000L));
        longField(c, BATCH_BASE_OFFSET, F_BATCH_BASE_OFFSET, row.batchBaseOffset);
        intField(c, BATCH_LAST_OFFSET_DELTA, F_BATCH_LAST_OFFSET_DELTA, row.batchLastOffsetDelta);
        intField(
                c,
                BATCH_PARTITION_LEADER_EPOCH,
                F_BATCH_PARTITION_LEADER_EPOCH,
                row.partitionLeaderEpoch);
        longField(c, BATCH_PRODUCER_ID, F_BATCH_PRODUCER_ID, row.producerId);
        intField(c, BATCH_PRODUCER_EPOCH, F_BATCH_PRODUCER_EPOCH, row.producerEpoch);
        intField(c, BATCH_BASE_SEQUENCE, F_BATCH_BASE_SEQUENCE, row.baseSequence);
        intField(c, BATCH_ATTRIBUTES, F_BATCH_ATTRIBUTES, row.attributes);
        longField(c, BATCH_BASE_TIMESTAMP, F_BATCH_BASE_TIMESTAMP, row.batchBaseTimestamp);
        longField(c, BATCH_MAX_TIMESTAMP, F_BATCH_MAX_TIMESTAMP, row.batchMaxTimestamp);
        intField(c, BATCH_COMPRESSION, F_BATCH_COMPRESSION, row.compressionId());
        c.startField(BATCH_IS_TRANSACTIONAL, F_BATCH_IS_TRANSACTIONAL);
        c.addBoolean(row.isTransactional());
        c.endField(BATCH_IS_TRANSACTIONAL, F_BATCH_IS_TRANSACTIONAL);
        c.startField(BATCH_IS_CONTROL, F_BATCH_IS_CONTROL);
        c.addBoolean(row.isControl());
        c.endField(BATCH_IS_CONTROL, F_BATCH_IS_CONTROL);
        longField(
                c,
                BATCH_LAST_OFFSET,
                F_BATCH_LAST_OFFSET,
                row.batchBaseOffset + row.batchLastOffsetDelta);
        c.startField(BATCH_TXN_STATE, F_BATCH_TXN_STATE);
        c.addBinary(Binary.fromConstantByteArray(row.txnState.columnBytes()));
        c.endField(BATCH_TXN_STATE, F_BATCH_TXN_STATE);
        c.startField(HEADERS, F_HEADERS);
        c.startGroup();
        Header[] headers = row.headers;
        if (headers.length > 0) {
            c.startField("list", 0);
            for (Header h : headers) {
                c.startGroup();
                c.startField("element", 0);
                c.startGroup();
                c.startField(KEY, 0);
                c.addBinary(Binary.fromString(h.key()));
                c.endField(KEY, 0);
                if (h.value() != null) {
                    c.startField(VALUE, 1);
                    c.addBinary(Binary.fromReusedByteArray(h.value()));
                    c.endField(VALUE, 1);
                }
                c.endGroup();
                c.endField("element", 0);
                c.endGroup();
            }
            c.endField("list", 0);
        }
        c.endGroup();
        c.endField(HEADERS, F_HEADERS);
        if (row.key != null) {
            binaryField(c, KEY, F_KEY, row.key);
        }
        if (row.value != null) {
            binaryField(c, VALUE, F_VALUE, row.value);
        }
        c.endMessage();
    }

    private static void longField(RecordConsumer c, String name, int index, long v) {
        c.startField(name, index);
        c.addLong(v);
        c.endField(name, index);
    }

    private static void intField(RecordConsumer c, String name, int index, int v) {
        c.startField(name, index);
        c.addInteger(v);
        c.endField(name, index);
    }

    private static void binaryField(RecordConsumer c, String name, int index, ByteBuffer v) {
        c.startField(name, index);
        c.addBinary(Binary.fromReusedByteBuffer(v.duplicate()));
        c.endField(name, index);
    }

    @Override
    public FinalizedWriteContext finalizeWrite() {
        return new FinalizedWriteContext(finalMetadata);
    }
}
