package io.tierlog.cold;

import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BOOLEAN;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;

import java.util.List;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Types;

/**
 * The Parquet layout of a cold object: one object per offset range of one partition, one row per
 * record, rows in offset order. Field IDs are set so that Iceberg can register the files.
 *
 * <pre>
 * id  column                          type                                 meaning
 *  1  offset                          INT64 required                       record offset
 *  2  timestamp                       INT64 TIMESTAMP(MICROS, UTC) req.    record timestamp as
 *                                                                          consumers see it (the
 *                                                                          batch max timestamp for
 *                                                                          LogAppendTime), in us
 *  3  key                             BINARY optional                      record key, null = none
 *  4  value                           BINARY optional                      record value, null =
 *                                                                          tombstone
 *  5  headers                         LIST required                        record headers in order
 *  6    element                       group required
 *  7      key                         BINARY (STRING) required             header key
 *  8      value                       BINARY optional                      header value
 *  9  batch_base_offset               INT64 required                       base offset of the batch
 * 10  batch_last_offset_delta         INT32 required                       last offset delta of the
 *                                                                          batch (may exceed the
 *                                                                          last record's delta)
 * 11  batch_partition_leader_epoch    INT32 required
 * 12  batch_producer_id               INT64 required                       -1 = none
 * 13  batch_producer_epoch            INT32 (INT16) required               -1 = none
 * 14  batch_base_sequence             INT32 required                       -1 = none; a record's
 *                                                                          sequence is base +
 *                                                                          offset delta
 * 15  batch_attributes                INT32 (INT16) required               raw batch attributes:
 *                                                                          bits 0-2 codec, 3
 *                                                                          timestamp type, 4
 *                                                                          transactional, 5 control,
 *                                                                          6 delete horizon
 * 16  batch_base_timestamp            INT64 required                       raw base timestamp (ms)
 * 17  batch_max_timestamp             INT64 required                       raw max timestamp (ms)
 * 18  batch_compression               INT32 required                       Kafka codec id (0 none,
 *                                                                          1 gzip, 2 snappy, 3 lz4,
 *                                                                          4 zstd), for analytics
 * 19  batch_is_transactional          BOOLEAN required                     for analytics
 * 20  batch_is_control                BOOLEAN required                     control batch (txn
 *                                                                          markers)
 * 21  batch_last_offset               INT64 required                       base offset + last
 *                                                                          offset delta: lets a
 *                                                                          reader select whole
 *                                                                          batches by offset
 * 22  batch_txn_state                 BINARY (STRING) required             {@code none} (not
 *                                                                          transactional), {@code
 *                                                                          committed} or {@code
 *                                                                          aborted}: the outcome
 *                                                                          of the batch's
 *                                                                          transaction; a marker's
 *                                                                          own type (format 2+)
 *
 * typed columns (format 3; only in objects written with typed columns, see TypedColumns):
 * 23  value_schema_id                 INT32 optional                       schema id of the value's
 *                                                                          wire-format header; null
 *                                                                          = none (or tombstone)
 * 24  value_record                    group optional                       the value decoded by its
 *                                                                          schema: the typer's
 *                                                                          struct, nested field ids
 *                                                                          1,000,000 + the subject's
 *                                                                          field id; null = not
 *                                                                          decoded
 * 25  value_error                     BINARY (STRING) optional             why the value has no
 *                                                                          value_record (null when
 *                                                                          decoded or no payload)
 * 26  value_rebuilt                   BOOLEAN required                     true: value is null
 *                                                                          because its exact bytes
 *                                                                          are rebuilt from
 *                                                                          value_schema_id and
 *                                                                          value_record ("one
 *                                                                          copy")
 * 30  value_crc32c                    INT32 optional                       CRC-32C of the value
 *                                                                          bytes, set exactly when
 *                                                                          value_rebuilt: a reader
 *                                                                          checks what it rebuilds
 * 27  key_schema_id                   INT32 optional                       as value_schema_id, for
 *                                                                          keys (keys are always
 *                                                                          stored raw too)
 * 28  key_record                      group optional                       nested ids 2,000,000 +
 *                                                                          local id
 * 29  key_error                       BINARY (STRING) optional
 * </pre>
 *
 * Columns are stored in the order offset, timestamp, the batch columns (ids 9-22), headers, key,
 * value: values last (see {@link #F_OFFSET}), then the typed columns of values and of keys in the
 * order above. The value columns are present when the object was written with a value typer, the
 * key columns with a key typer; either makes the object format 3, so that a reader of format 2
 * refuses it rather than read a rebuilt value's null {@code value} as a tombstone. Objects without
 * typed columns stay format 2. Columns 18-21 repeat what {@code batch_attributes} holds, for SQL
 * users; batch-level columns repeat per row and cost almost nothing after dictionary/RLE encoding.
 * Statistics and the page index (column index + offset index) are written for {@code offset},
 * {@code timestamp} and the batch columns, not for {@code key}, {@code value} or headers. Empty
 * batches (no records, left by log compaction) have no rows and are not reproduced.
 *
 * <p>Transactions: objects hold only finished transactions (the offload stops at the partition's
 * last stable offset), control batches included as rows (their one record's key and value), so
 * {@code batch_txn_state} is final when written: an analytics reader selects what a {@code
 * read_committed} consumer sees with {@code NOT batch_is_control AND batch_txn_state <> 'aborted'}.
 * Format 1 objects (before the column) are still read: {@code tierlog offload} of a Kafka log dir
 * may have put transactional batches into them, whose outcome a reader then derives from the
 * markers inside the object.
 *
 * <p>File key-value metadata ({@code tierlog.*}): {@link #META_FORMAT_VERSION}, topic, partition,
 * first and last offset, min and max timestamp (ms), record count, batch count and the size of the
 * source batches; with typed columns the counts of values decoded, failed and rebuilt and of keys
 * decoded and failed ({@code tierlog.typed.*}); in a compacted object also {@link
 * #META_COMPACTED_REPLACES}. Batch columns keep the raw attributes and base timestamp, so a batch's
 * KIP-534 delete horizon (attribute bit 6, the horizon in the base timestamp) survives the cold
 * tier and compaction there.
 *
 * <p>Stateless; constants only.
 */
final class ColdLayout {
    private ColdLayout() {}

    /**
     * 2 added {@code batch_txn_state}, 3 the typed columns; readers accept every version up to this
     * one.
     */
    static final int FORMAT_VERSION = 3;

    /** The version of objects without typed columns (readable by format 2 readers). */
    static final int UNTYPED_FORMAT_VERSION = 2;

    /** The first format version with typed columns ({@code value_rebuilt} among them). */
    static final int TYPED_FORMAT_VERSION = 3;

    /** The first format version with {@code batch_txn_state}. */
    static final int TXN_STATE_FORMAT_VERSION = 2;

    static final String META_FORMAT_VERSION = "tierlog.format.version";
    static final String META_TOPIC = "tierlog.topic";
    static final String META_PARTITION = "tierlog.partition";
    static final String META_FIRST_OFFSET = "tierlog.first.offset";
    static final String META_LAST_OFFSET = "tierlog.last.offset";
    static final String META_MIN_TIMESTAMP = "tierlog.min.timestamp";
    static final String META_MAX_TIMESTAMP = "tierlog.max.timestamp";
    static final String META_RECORD_COUNT = "tierlog.record.count";
    static final String META_BATCH_COUNT = "tierlog.batch.count";
    static final String META_SOURCE_BYTES = "tierlog.source.bytes";
    static final String META_TYPED_VALUE_ROWS = "tierlog.typed.value.rows";
    static final String META_TYPED_VALUE_FAILED = "tierlog.typed.value.failed";
    static final String META_TYPED_VALUE_REBUILT = "tierlog.typed.value.rebuilt";
    static final String META_TYPED_KEY_ROWS = "tierlog.typed.key.rows";
    static final String META_TYPED_KEY_FAILED = "tierlog.typed.key.failed";

    /**
     * Present only in an object the cold compactor wrote to replace a run of objects: {@code
     * <first>-<last>}, the replaced run's offsets (decimal, inclusive), which are also the object's
     * own first and last offset. Lets a catalog rebuilt from the bucket tell a compacted object
     * from the originals it replaced.
     */
    static final String META_COMPACTED_REPLACES = "tierlog.compacted.replaces";

    static final String OFFSET = "offset";
    static final String TIMESTAMP = "timestamp";
    static final String KEY = "key";
    static final String VALUE = "value";
    static final String HEADERS = "headers";
    static final String BATCH_BASE_OFFSET = "batch_base_offset";
    static final String BATCH_LAST_OFFSET_DELTA = "batch_last_offset_delta";
    static final String BATCH_PARTITION_LEADER_EPOCH = "batch_partition_leader_epoch";
    static final String BATCH_PRODUCER_ID = "batch_producer_id";
    static final String BATCH_PRODUCER_EPOCH = "batch_producer_epoch";
    static final String BATCH_BASE_SEQUENCE = "batch_base_sequence";
    static final String BATCH_ATTRIBUTES = "batch_attributes";
    static final String BATCH_BASE_TIMESTAMP = "batch_base_timestamp";
    static final String BATCH_MAX_TIMESTAMP = "batch_max_timestamp";
    static final String BATCH_COMPRESSION = "batch_compression";
    static final String BATCH_IS_TRANSACTIONAL = "batch_is_transactional";
    static final String BATCH_IS_CONTROL = "batch_is_control";
    static final String BATCH_LAST_OFFSET = "batch_last_offset";
    static final String BATCH_TXN_STATE = "batch_txn_state";
    static final String VALUE_SCHEMA_ID = "value_schema_id";
    static final String VALUE_RECORD = "value_record";
    static final String VALUE_ERROR = "value_error";
    static final String VALUE_REBUILT = "value_rebuilt";
    static final String VALUE_CRC32C = "value_crc32c";
    static final String KEY_SCHEMA_ID = "key_schema_id";
    static final String KEY_RECORD = "key_record";
    static final String KEY_ERROR = "key_error";

    /**
     * Field indexes in {@link #SCHEMA} (top level), used by the write support. The physical order
     * puts the small columns first and {@code key} and {@code value} last, so that the pages a read
     * needs of every column but the values lie close together (one ranged GET); readers find
     * columns by name, so objects written in the earlier order (value fourth) read the same.
     */
    static final int F_OFFSET = 0;

    static final int F_TIMESTAMP = 1;
    static final int F_BATCH_BASE_OFFSET = 2;
    static final int F_BATCH_LAST_OFFSET_DELTA = 3;
    static final int F_BATCH_PARTITION_LEADER_EPOCH = 4;
    static final int F_BATCH_PRODUCER_ID = 5;
    static final int F_BATCH_PRODUCER_EPOCH = 6;
    static final int F_BATCH_BASE_SEQUENCE = 7;
    static final int F_BATCH_ATTRIBUTES = 8;
    static final int F_BATCH_BASE_TIMESTAMP = 9;
    static final int F_BATCH_MAX_TIMESTAMP = 10;
    static final int F_BATCH_COMPRESSION = 11;
    static final int F_BATCH_IS_TRANSACTIONAL = 12;
    static final int F_BATCH_IS_CONTROL = 13;
    static final int F_BATCH_LAST_OFFSET = 14;
    static final int F_BATCH_TXN_STATE = 15;
    static final int F_HEADERS = 16;
    static final int F_KEY = 17;
    static final int F_VALUE = 18;

    static final MessageType SCHEMA =
            Types.buildMessage()
                    .required(INT64)
                    .id(1)
                    .named(OFFSET)
                    .required(INT64)
                    .as(
                            LogicalTypeAnnotation.timestampType(
                                    true, LogicalTypeAnnotation.TimeUnit.MICROS))
                    .id(2)
                    .named(TIMESTAMP)
                    .required(INT64)
                    .id(9)
                    .named(BATCH_BASE_OFFSET)
                    .required(INT32)
                    .id(10)
                    .named(BATCH_LAST_OFFSET_DELTA)
                    .required(INT32)
                    .id(11)
                    .named(BATCH_PARTITION_LEADER_EPOCH)
                    .required(INT64)
                    .id(12)
                    .named(BATCH_PRODUCER_ID)
                    .required(INT32)
                    .as(LogicalTypeAnnotation.intType(16, true))
                    .id(13)
                    .named(BATCH_PRODUCER_EPOCH)
                    .required(INT32)
                    .id(14)
                    .named(BATCH_BASE_SEQUENCE)
                    .required(INT32)
                    .as(LogicalTypeAnnotation.intType(16, true))
                    .id(15)
                    .named(BATCH_ATTRIBUTES)
                    .required(INT64)
                    .id(16)
                    .named(BATCH_BASE_TIMESTAMP)
                    .required(INT64)
                    .id(17)
                    .named(BATCH_MAX_TIMESTAMP)
                    .required(INT32)
                    .id(18)
                    .named(BATCH_COMPRESSION)
                    .required(BOOLEAN)
                    .id(19)
                    .named(BATCH_IS_TRANSACTIONAL)
                    .required(BOOLEAN)
                    .id(20)
                    .named(BATCH_IS_CONTROL)
                    .required(INT64)
                    .id(21)
                    .named(BATCH_LAST_OFFSET)
                    .required(BINARY)
                    .as(LogicalTypeAnnotation.stringType())
                    .id(22)
                    .named(BATCH_TXN_STATE)
                    .addField(
                            Types.requiredGroup()
                                    .as(LogicalTypeAnnotation.listType())
                                    .id(5)
                                    .addField(
                                            Types.repeatedGroup()
                                                    .addField(
                                                            Types.requiredGroup()
                                                                    .id(6)
                                                                    .required(BINARY)
                                                                    .as(
                                                                            LogicalTypeAnnotation
                                                                                    .stringType())
                                                                    .id(7)
                                                                    .named(KEY)
                                                                    .optional(BINARY)
                                                                    .id(8)
                                                                    .named(VALUE)
                                                                    .named("element"))
                                                    .named("list"))
                                    .named(HEADERS))
                    .optional(BINARY)
                    .id(3)
                    .named(KEY)
                    .optional(BINARY)
                    .id(4)
                    .named(VALUE)
                    .named("kafka_record");

    /**
     * The schema of an object written with {@code typed}: {@link #SCHEMA}, then the typed columns
     * of values and keys that {@code typed} has typers for.
     */
    static MessageType schema(TypedColumns typed) {
        if (!typed.any()) {
            return SCHEMA;
        }
        Types.MessageTypeBuilder b = Types.buildMessage();
        SCHEMA.getFields().forEach(b::addField);
        if (typed.values() != null) {
            b.optional(INT32).id(23).named(VALUE_SCHEMA_ID);
            b.addField(TypedParquet.column(VALUE_RECORD, 24, typed.values().struct()));
            b.optional(BINARY).as(LogicalTypeAnnotation.stringType()).id(25).named(VALUE_ERROR);
            b.required(BOOLEAN).id(26).named(VALUE_REBUILT);
            b.optional(INT32).id(30).named(VALUE_CRC32C);
        }
        if (typed.keys() != null) {
            b.optional(INT32).id(27).named(KEY_SCHEMA_ID);
            b.addField(TypedParquet.column(KEY_RECORD, 28, typed.keys().struct()));
            b.optional(BINARY).as(LogicalTypeAnnotation.stringType()).id(29).named(KEY_ERROR);
        }
        return b.named(SCHEMA.getName());
    }

    /** Columns whose min/max statistics and page index are worthless (random bytes). */
    static final List<String> NO_STATISTICS_COLUMNS =
            List.of(
                    KEY,
                    VALUE,
                    HEADERS + ".list.element." + KEY,
                    HEADERS + ".list.element." + VALUE,
                    VALUE_CRC32C);

    /** Columns that rarely repeat, so dictionary encoding only costs time. */
    static final List<String> NO_DICTIONARY_COLUMNS =
            List.of(OFFSET, TIMESTAMP, VALUE, VALUE_CRC32C);
}
