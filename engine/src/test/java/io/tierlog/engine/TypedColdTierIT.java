package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.SchemaType;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed columns end to end through the engine, with the registry in the engine's catalog and real
 * Avro: records produced under two versions of a subject (v2 adds a field with a default, removes
 * an optional field, widens int to long) are offloaded with typed columns; DuckDB over the objects
 * gives the same aggregates as decoding the raw values with the registry's schemas; a reader of the
 * cold tier gets every value byte for byte, with the one-copy path (default) and without it (topic
 * config {@code cold.typed.one.copy=false}).
 */
class TypedColdTierIT {
    static final String V1 =
            "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
                    + "{\"name\":\"id\",\"type\":\"string\"},"
                    + "{\"name\":\"amount\",\"type\":\"long\"},"
                    + "{\"name\":\"qty\",\"type\":\"int\"},"
                    + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    static final String V2 =
            "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
                    + "{\"name\":\"id\",\"type\":\"string\"},"
                    + "{\"name\":\"amount\",\"type\":\"long\"},"
                    + "{\"name\":\"qty\",\"type\":\"long\"},"
                    + "{\"name\":\"discount\",\"type\":\"int\",\"default\":7}]}";

    @TempDir Path dir;
    EngineFixture fx;
    TieredLog log;

    /** Every value produced, by topic and offset. */
    final Map<String, Map<Long, byte[]>> produced = new HashMap<>();

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
        log = fx.open(Map.of("local.retention.bytes", "1"));
    }

    @AfterEach
    void tearDown() throws Exception {
        log.close();
        fx.close();
    }

    private static byte[] avro(int id, Schema schema, GenericRecord r) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(id).array());
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(r, enc);
        enc.flush();
        return out.toByteArray();
    }

    /** Appends {@code batches} batches of orders under schema {@code id} to {@code topic}. */
    private void produce(String topic, int id, String text, int batches, Random rnd)
            throws Exception {
        Schema schema = new Schema.Parser().parse(text);
        TopicPartition tp = new TopicPartition(topic, 0);
        Map<Long, byte[]> values = produced.computeIfAbsent(topic, t -> new HashMap<>());
        for (int b = 0; b < batches; b++) {
            long next = log.latestOffset(tp);
            SimpleRecord[] recs = new SimpleRecord[20];
            for (int i = 0; i < recs.length; i++) {
                GenericRecord r = new GenericData.Record(schema);
                r.put("id", "o" + (next + i));
                r.put("amount", (long) rnd.nextInt(1_000_000));
                if (schema.getField("note") != null) {
                    r.put("note", rnd.nextBoolean() ? null : "n" + rnd.nextInt(10));
                    r.put("qty", rnd.nextInt(100));
                } else {
                    r.put("qty", 3_000_000_000L + rnd.nextInt(100)); // past int's range
                    r.put("discount", rnd.nextInt(50));
                }
                byte[] v = avro(id, schema, r);
                values.put(next + i, v);
                recs[i] = new SimpleRecord(1_700_000_000_000L + next + i, null, v);
            }
            Compression c = b % 2 == 0 ? Compression.zstd().build() : Compression.NONE;
            log.append(tp, MemoryRecords.withRecords(c, recs).buffer().duplicate());
        }
    }

    /** Two versions registered, records under each, offloaded after each. */
    private int[] produceTwoVersions(String topic, Map<String, String> configs) throws Exception {
        log.createTopic(topic, 1, configs);
        CatalogSchemaRegistry registry = log.schemaRegistry();
        String subject = topic + "-value";
        registry.putConfig(subject, "NONE", null); // the compatibility rules are another slice's
        int id1 = registry.register(subject, SchemaType.AVRO, V1, List.of(), false).schema().id();
        Random rnd = new Random(topic.hashCode());
        produce(topic, id1, V1, 60, rnd);
        log.maintain(); // objects written while only v1 exists
        assertThat(objects(topic)).as("objects of v1 alone").isNotEmpty();
        int id2 = registry.register(subject, SchemaType.AVRO, V2, List.of(), false).schema().id();
        produce(topic, id2, V2, 60, rnd);
        produce(topic, id1, V1, 5, rnd); // old producers keep writing v1
        // roll the active segment so that everything is offloaded
        log.maintain();
        return new int[] {id1, id2};
    }

    private List<ColdObject> objects(String topic) {
        return fx.cold.catalog().objects(topic, 0);
    }

    /** Every value read back from the cold tier, by offset, the way a consumer fetches. */
    private Map<Long, byte[]> readCold(String topic) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        Map<Long, byte[]> out = new HashMap<>();
        long next = 0;
        long coldEnd = log.offsets(tp).coldHighWatermark();
        while (next < coldEnd) {
            TierRead r = EngineFixture.get(log.read(tp, next, 64 * 1024));
            assertThat(r.tier()).isEqualTo(TierRead.Tier.COLD);
            for (RecordBatch b : EngineFixture.batches(r)) {
                b.ensureValid();
                for (Record rec : b) {
                    byte[] v = new byte[rec.valueSize()];
                    rec.value().get(v);
                    out.put(rec.offset(), v);
                }
                next = b.lastOffset() + 1;
            }
        }
        return out;
    }

    private void assertColdValuesAreTheProducedBytes(String topic) throws Exception {
        Map<Long, byte[]> cold = readCold(topic);
        assertThat(cold).isNotEmpty();
        for (Map.Entry<Long, byte[]> e : cold.entrySet()) {
            assertThat(e.getValue())
                    .as("value at offset %d", e.getKey())
                    .isEqualTo(produced.get(topic).get(e.getKey()));
        }
    }

    private long rebuiltValues(String topic) throws Exception {
        long n = 0;
        for (ColdObject o : objects(topic)) {
            n += new ParquetLogReader(fx.cold.store(), o.key(), o.sizeInBytes()).rebuiltValues();
        }
        return n;
    }

    @Test
    void aColdReaderGetsByteIdenticalValuesWithAndWithoutOneCopy() throws Exception {
        produceTwoVersions("once", Map.of());
        produceTwoVersions("twice", Map.of("cold.typed.one.copy", "false"));
        assertThat(rebuiltValues("once")).as("stored once").isPositive();
        assertThat(rebuiltValues("twice")).as("stored twice").isZero();
        assertColdValuesAreTheProducedBytes("once");
        assertColdValuesAreTheProducedBytes("twice");
        assertThat(log.verify(true)).as("deep verify rebuilds and checks every value").isEmpty();
    }

    @Test
    void verifyReportsAValueThatDoesNotRebuildToTheBytesWritten() throws Exception {
        produceTwoVersions("once", Map.of());
        assertThat(rebuiltValues("once")).isPositive();
        io.tierlog.common.typed.ValueRebuilder drifted =
                (id, struct, row) -> {
                    byte[] b =
                            io.tierlog.registry.typed.RegistryValueTyper.rebuilder(
                                            log.schemaRegistry())
                                    .rebuild(id, struct, row);
                    b[b.length - 1] ^= 0x01; // an encoder that drifted from the one at offload
                    return b;
                };
        List<Violation> found;
        try (io.tierlog.hot.ReadOnlyLogDir hot =
                io.tierlog.hot.ReadOnlyLogDir.open(log.hotLogDir())) {
            found =
                    new Verifier(fx.cold.catalog(), fx.cold.store(), hot)
                            .rebuilder(drifted)
                            .verify(true);
        }
        assertThat(found)
                .anySatisfy(
                        v -> {
                            assertThat(v.kind()).isEqualTo(Violation.Kind.OBJECT_UNREADABLE);
                            assertThat(v.message()).contains("cannot read offsets");
                        });
        assertThat(log.verify(true)).as("the engine's own rebuilder").isEmpty();
    }

    @Test
    void duckDbOverObjectsOfTwoSchemaVersionsAgreesWithDecodingTheRawValues() throws Exception {
        produceTwoVersions("orders", Map.of());
        // the answer from the raw values, each decoded with its writer schema from the registry
        long n = 0;
        long amount = 0;
        long qty = 0;
        long notes = 0;
        long discount = 0;
        long discountResolved = 0; // as an Avro reader of v2 sees v1 records (the default)
        CatalogSchemaRegistry registry = log.schemaRegistry();
        Schema reader = new Schema.Parser().parse(V2);
        long coldEnd = log.offsets(new TopicPartition("orders", 0)).coldHighWatermark();
        for (Map.Entry<Long, byte[]> e : produced.get("orders").entrySet()) {
            if (e.getKey() >= coldEnd) {
                continue; // still only in the hot tier
            }
            byte[] v = e.getValue();
            int id = ByteBuffer.wrap(v, 1, 4).getInt();
            Schema writer = new Schema.Parser().parse(registry.schema(id).orElseThrow().text());
            GenericRecord r =
                    new GenericDatumReader<GenericRecord>(writer)
                            .read(
                                    null,
                                    DecoderFactory.get().binaryDecoder(v, 5, v.length - 5, null));
            GenericRecord resolved =
                    new GenericDatumReader<GenericRecord>(writer, reader)
                            .read(
                                    null,
                                    DecoderFactory.get().binaryDecoder(v, 5, v.length - 5, null));
            n++;
            amount += (Long) r.get("amount");
            qty += ((Number) r.get("qty")).longValue();
            notes += writer.getField("note") != null && r.get("note") != null ? 1 : 0;
            discount += writer.getField("discount") != null ? (Integer) r.get("discount") : 0;
            discountResolved += (Integer) resolved.get("discount");
        }
        List<String> files = new ArrayList<>();
        for (ColdObject o : objects("orders")) {
            files.add("'" + fx.cold.objectFile(o.key()).toString().replace("'", "''") + "'");
        }
        assertThat(files).hasSizeGreaterThan(1);
        Properties props = new Properties();
        props.setProperty("autoinstall_known_extensions", "false");
        props.setProperty("autoload_known_extensions", "false");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:", props);
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(value_record), sum(value_record.amount),"
                                        + " sum(value_record.qty), count(value_record.note),"
                                        + " sum(value_record.discount),"
                                        + " sum(coalesce(value_record.discount, 7))"
                                        + " FROM read_parquet(["
                                        + String.join(",", files)
                                        + "], union_by_name = true)")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).as("typed rows").isEqualTo(n);
            assertThat(rs.getLong(2)).as("amount").isEqualTo(amount);
            assertThat(rs.getLong(3)).as("qty, int then long").isEqualTo(qty);
            assertThat(rs.getLong(4)).as("note, removed in v2").isEqualTo(notes);
            assertThat(rs.getLong(5)).as("discount, added in v2").isEqualTo(discount);
            assertThat(rs.getLong(6)).as("discount with its default").isEqualTo(discountResolved);
        }
    }
}
