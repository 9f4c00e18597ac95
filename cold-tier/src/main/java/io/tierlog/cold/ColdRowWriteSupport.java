package io.tierlog.cold;

import static io.tierlog.cold.ColdLayout.*;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.ValueTyper;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.header.Header;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * Writes {@link ColdRow}s straight into parquet-mr's {@link RecordConsumer} (no intermediate Group
 * objects), field by field in the order of {@link ColdLayout#schema}: the typed columns from the
 * typer outcomes the writer put into the row ({@link ColdRow#valueTyped}, {@link
 * ColdRow#keyTyped}), which it has checked to fit their struct. The file key-value metadata is
 * supplied at the end, once the offset and time ranges are known.
 *
 * <p>Not thread-safe: owned by one {@code ParquetWriter}.
 */
final class ColdRowWriteSupport extends WriteSupport<ColdRow> {
    private RecordConsumer out;
    private Map<String, String> finalMetadata = Map.of();
    private final MessageType schema;

    /** The typed structs of values and keys; null = no such columns. */
    private final TypedType.Struct valueStruct;

    private final TypedType.Struct keyStruct;

    /** Untyped objects. */
    ColdRowWriteSupport() {
        this(TypedColumns.NONE);
    }

    /** Objects with the typed columns of {@code typed}. */
    ColdRowWriteSupport(TypedColumns typed) {
        this.schema = ColdLayout.schema(typed);
        this.valueStruct = typed.values() == null ? null : typed.values().struct();
        this.keyStruct = typed.keys() == null ? null : typed.keys().struct();
    }

    MessageType schema() {
        return schema;
    }

    void finalMetadata(Map<String, String> metadata) {
        this.finalMetadata = metadata;
    }

    @Override
    public WriteContext init(Configuration configuration) {
        return new WriteContext(schema, Map.of());
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
        return new WriteContext(schema, Map.of());
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
        if (row.value != null && !row.valueRebuilt) {
            binaryField(c, VALUE, F_VALUE, row.value);
        }
        int field = F_VALUE + 1;
        if (valueStruct != null) {
            writeTyped(
                    c,
                    field,
                    VALUE_SCHEMA_ID,
                    VALUE_RECORD,
                    VALUE_ERROR,
                    valueStruct,
                    row.valueTyped);
            field += 3;
            c.startField(VALUE_REBUILT, field);
            c.addBoolean(row.valueRebuilt);
            c.endField(VALUE_REBUILT, field);
            field++;
            if (row.valueRebuilt) {
                intField(c, VALUE_CRC32C, field, row.valueCrc);
            }
            field++;
        }
        if (keyStruct != null) {
            writeTyped(c, field, KEY_SCHEMA_ID, KEY_RECORD, KEY_ERROR, keyStruct, row.keyTyped);
        }
        c.endMessage();
    }

    /** The schema id, record and error columns (at {@code field}, +1, +2) of one payload. */
    private static void writeTyped(
            RecordConsumer c,
            int field,
            String idName,
            String recordName,
            String errorName,
            TypedType.Struct struct,
            ValueTyper.Typed typed) {
        if (typed == null) {
            return; // no payload: all null
        }
        if (typed.schemaId() >= 0) {
            intField(c, idName, field, typed.schemaId());
        }
        if (typed.row() != null) {
            c.startField(recordName, field + 1);
            c.startGroup();
            TypedParquet.writeFields(c, struct, typed.row());
            c.endGroup();
            c.endField(recordName, field + 1);
        }
        if (typed.error() != null) {
            c.startField(errorName, field + 2);
            c.addBinary(Binary.fromString(typed.error()));
            c.endField(errorName, field + 2);
        }
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
