package io.tierlog.cold;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.ValueRebuilder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Materializes rows of a cold object into one reused {@link ColdRow}, reading every column except
 * the analytics-only ones (compression id, transactional and control flags, which {@code
 * batch_attributes} already holds). Key and value buffers are views into parquet-mr's page buffers:
 * valid only until the next row is read, so a consumer must copy or write them out first.
 *
 * <p>Not thread-safe: one instance per reader.
 */
final class ColdRowReadSupport extends ReadSupport<ColdRow> {
    private static final List<String> SKIPPED =
            List.of(
                    ColdLayout.BATCH_COMPRESSION,
                    ColdLayout.BATCH_IS_TRANSACTIONAL,
                    ColdLayout.BATCH_IS_CONTROL,
                    ColdLayout.VALUE_ERROR,
                    ColdLayout.KEY_SCHEMA_ID,
                    ColdLayout.KEY_RECORD,
                    ColdLayout.KEY_ERROR);

    private final List<String> only;

    /** Rebuilds values stored once; null = such a row fails the read. */
    private final ValueRebuilder rebuilder;

    /** Reads every column needed to rebuild batches. */
    ColdRowReadSupport() {
        this(null, null);
    }

    /** Reads only the named top-level columns (null = every column needed to rebuild batches). */
    ColdRowReadSupport(List<String> only) {
        this(only, null);
    }

    /**
     * As {@link #ColdRowReadSupport(List)}; a row with {@code value_rebuilt} gets its value from
     * {@code rebuilder} over its {@code value_schema_id} and {@code value_record}, checked against
     * its {@code value_crc32c}.
     */
    ColdRowReadSupport(List<String> only, ValueRebuilder rebuilder) {
        this.only = only;
        this.rebuilder = rebuilder;
    }

    MessageType projection(MessageType fileSchema) {
        Types.MessageTypeBuilder b = Types.buildMessage();
        for (Type t : fileSchema.getFields()) {
            boolean wanted =
                    only == null ? !SKIPPED.contains(t.getName()) : only.contains(t.getName());
            if (wanted) {
                b.addField(t);
            }
        }
        return b.named(fileSchema.getName());
    }

    @Override
    public ReadContext init(InitContext context) {
        return new ReadContext(projection(context.getFileSchema()));
    }

    @Override
    public RecordMaterializer<ColdRow> prepareForRead(
            Configuration configuration,
            Map<String, String> keyValueMetaData,
            MessageType fileSchema,
            ReadContext readContext) {
        return new Materializer(readContext.getRequestedSchema(), rebuilder);
    }

    @Override
    public RecordMaterializer<ColdRow> prepareForRead(
            ParquetConfiguration configuration,
            Map<String, String> keyValueMetaData,
            MessageType fileSchema,
            ReadContext readContext) {
        return new Materializer(readContext.getRequestedSchema(), rebuilder);
    }

    private static final class Materializer extends RecordMaterializer<ColdRow> {
        private final ColdRow row = new ColdRow();
        private final RootConverter root;

        Materializer(MessageType schema, ValueRebuilder rebuilder) {
            root = new RootConverter(schema, row, rebuilder);
        }

        @Override
        public ColdRow getCurrentRecord() {
            return row;
        }

        @Override
        public GroupConverter getRootConverter() {
            return root;
        }
    }

    private static final class RootConverter extends GroupConverter {
        private final ColdRow row;
        private final Converter[] converters;
        private final List<Header> headers = new ArrayList<>();
        private final ValueRebuilder rebuilder;
        private final CRC32C crc = new CRC32C();
        private TypedType.Struct valueStruct;

        RootConverter(MessageType schema, ColdRow row, ValueRebuilder rebuilder) {
            this.row = row;
            this.rebuilder = rebuilder;
            this.converters = new Converter[schema.getFieldCount()];
            for (int i = 0; i < converters.length; i++) {
                converters[i] = converterFor(schema.getType(i));
            }
        }

        private Converter converterFor(Type t) {
            switch (t.getName()) {
                case ColdLayout.OFFSET:
                    return longs(v -> row.offset = v);
                case ColdLayout.TIMESTAMP:
                    return longs(v -> row.timestamp = Math.floorDiv(v, 1000L));
                case ColdLayout.KEY:
                    return binaries(v -> row.key = v.toByteBuffer());
                case ColdLayout.VALUE:
                    return binaries(v -> row.value = v.toByteBuffer());
                case ColdLayout.HEADERS:
                    return new HeadersConverter(t.asGroupType(), headers);
                case ColdLayout.BATCH_BASE_OFFSET:
                    return longs(v -> row.batchBaseOffset = v);
                case ColdLayout.BATCH_LAST_OFFSET_DELTA:
                    return ints(v -> row.batchLastOffsetDelta = v);
                case ColdLayout.BATCH_PARTITION_LEADER_EPOCH:
                    return ints(v -> row.partitionLeaderEpoch = v);
                case ColdLayout.BATCH_PRODUCER_ID:
                    return longs(v -> row.producerId = v);
                case ColdLayout.BATCH_PRODUCER_EPOCH:
                    return ints(v -> row.producerEpoch = (short) v);
                case ColdLayout.BATCH_BASE_SEQUENCE:
                    return ints(v -> row.baseSequence = v);
                case ColdLayout.BATCH_ATTRIBUTES:
                    return ints(v -> row.attributes = (short) v);
                case ColdLayout.BATCH_BASE_TIMESTAMP:
                    return longs(v -> row.batchBaseTimestamp = v);
                case ColdLayout.BATCH_MAX_TIMESTAMP:
                    return longs(v -> row.batchMaxTimestamp = v);
                case ColdLayout.BATCH_TXN_STATE:
                    return binaries(
                            v -> {
                                byte[] b = v.getBytesUnsafe();
                                row.txnState = TxnState.ofColumn(b, 0, b.length);
                            });
                case ColdLayout.VALUE_SCHEMA_ID:
                    return ints(v -> row.valueSchemaId = v);
                case ColdLayout.VALUE_RECORD:
                    valueStruct = TypedParquet.structOf(t.asGroupType());
                    return new TypedRowConverter(valueStruct, r -> row.valueRecord = r);
                case ColdLayout.VALUE_REBUILT:
                    return new PrimitiveConverter() {
                        @Override
                        public void addBoolean(boolean v) {
                            row.valueRebuilt = v;
                        }
                    };
                case ColdLayout.VALUE_CRC32C:
                    return ints(v -> row.valueCrc = v);
                default:
                    // columns added by a later format version, or batch_last_offset (derived)
                    return t.isPrimitive() ? new IgnoredPrimitive() : new IgnoredGroup(t);
            }
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return converters[fieldIndex];
        }

        @Override
        public void start() {
            row.key = null;
            row.value = null;
            row.txnState = TxnState.NONE; // format 1 objects have no batch_txn_state
            row.valueSchemaId = -1;
            row.valueRecord = null;
            row.valueRebuilt = false;
            headers.clear();
        }

        @Override
        public void end() {
            row.headers = headers.isEmpty() ? ColdRow.NO_HEADERS : headers.toArray(new Header[0]);
            if (row.valueRebuilt) {
                row.value = ByteBuffer.wrap(rebuild());
            }
        }

        /** The value of a row stored once, rebuilt and checked against its CRC. */
        private byte[] rebuild() {
            if (rebuilder == null) {
                throw new IllegalStateException(
                        "value at offset "
                                + row.offset
                                + " is stored once (value_rebuilt) and no value rebuilder is set");
            }
            if (row.valueRecord == null || row.valueSchemaId < 0 || valueStruct == null) {
                throw new IllegalStateException(
                        "value at offset "
                                + row.offset
                                + " is marked value_rebuilt without schema id and value_record");
            }
            byte[] b = rebuilder.rebuild(row.valueSchemaId, valueStruct, row.valueRecord);
            crc.reset();
            crc.update(b, 0, b.length);
            if ((int) crc.getValue() != row.valueCrc) {
                throw new IllegalStateException(
                        "rebuilt value at offset "
                                + row.offset
                                + " (schema id "
                                + row.valueSchemaId
                                + ") fails its CRC-32C: not the bytes written");
            }
            return b;
        }
    }

    /** headers (LIST) -> list (repeated) -> element (key, value). */
    private static final class HeadersConverter extends GroupConverter {
        private final GroupConverter list;

        HeadersConverter(GroupType headersType, List<Header> headers) {
            GroupConverter element =
                    new GroupConverter() {
                        private String key;
                        private byte[] value;
                        private final Converter keyConverter =
                                new PrimitiveConverter() {
                                    @Override
                                    public void addBinary(Binary v) {
                                        key = v.toStringUsingUTF8();
                                    }
                                };
                        private final Converter valueConverter =
                                new PrimitiveConverter() {
                                    @Override
                                    public void addBinary(Binary v) {
                                        value = v.getBytes();
                                    }
                                };

                        @Override
                        public Converter getConverter(int i) {
                            return i == 0 ? keyConverter : valueConverter;
                        }

                        @Override
                        public void start() {
                            key = null;
                            value = null;
                        }

                        @Override
                        public void end() {
                            headers.add(new RecordHeader(key, value));
                        }
                    };
            list =
                    new GroupConverter() {
                        @Override
                        public Converter getConverter(int i) {
                            return element;
                        }

                        @Override
                        public void start() {}

                        @Override
                        public void end() {}
                    };
        }

        @Override
        public Converter getConverter(int i) {
            return list;
        }

        @Override
        public void start() {}

        @Override
        public void end() {}
    }

    private static final class IgnoredPrimitive extends PrimitiveConverter {
        @Override
        public void addBinary(Binary value) {}

        @Override
        public void addBoolean(boolean value) {}

        @Override
        public void addDouble(double value) {}

        @Override
        public void addFloat(float value) {}

        @Override
        public void addInt(int value) {}

        @Override
        public void addLong(long value) {}
    }

    private static final class IgnoredGroup extends GroupConverter {
        private final Converter[] children;

        IgnoredGroup(Type t) {
            GroupType g = t.asGroupType();
            children = new Converter[g.getFieldCount()];
            for (int i = 0; i < children.length; i++) {
                Type c = g.getType(i);
                children[i] = c.isPrimitive() ? new IgnoredPrimitive() : new IgnoredGroup(c);
            }
        }

        @Override
        public Converter getConverter(int i) {
            return children[i];
        }

        @Override
        public void start() {}

        @Override
        public void end() {}
    }

    private interface LongSink {
        void accept(long v);
    }

    private interface IntSink {
        void accept(int v);
    }

    private interface BinarySink {
        void accept(Binary v);
    }

    private static PrimitiveConverter longs(LongSink sink) {
        return new PrimitiveConverter() {
            @Override
            public void addLong(long value) {
                sink.accept(value);
            }
        };
    }

    private static PrimitiveConverter ints(IntSink sink) {
        return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
                sink.accept(value);
            }
        };
    }

    private static PrimitiveConverter binaries(BinarySink sink) {
        return new PrimitiveConverter() {
            @Override
            public void addBinary(Binary value) {
                sink.accept(value);
            }
        };
    }
}
