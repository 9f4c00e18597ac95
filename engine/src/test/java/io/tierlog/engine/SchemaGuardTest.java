package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tierlog.catalog.Catalog;
import io.tierlog.common.Config;
import io.tierlog.common.testing.Property;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.WireFormat;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The produce-time schema contract in the write door: which records a topic with validation on
 * refuses (by index, with a reason), that tombstones and unvalidated parts pass, that the
 * non-blocking path never does a blocking lookup, and what a registry outage or a damaged batch
 * answers.
 */
class SchemaGuardTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir Path dir;
    private Catalog catalog;
    private TopicConfigs configs;
    private final ScriptedSchemaRegistry registry =
            new ScriptedSchemaRegistry()
                    .register("orders-value", 1, SchemaType.AVRO)
                    .register("orders-key", 2, SchemaType.JSON)
                    .register("payments-value", 3, SchemaType.AVRO)
                    .register("orders-value", 4, SchemaType.PROTOBUF);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private SchemaGuard guard;

    @BeforeEach
    void open() {
        catalog = Catalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        configs = new TopicConfigs(Config.empty(), catalog);
        guard = new SchemaGuard(configs, () -> registry, meters);
    }

    @AfterEach
    void close() {
        catalog.close();
    }

    private void validate(String... onKeys) {
        Map<String, String> m = new java.util.HashMap<>();
        for (String k : onKeys) {
            m.put(k, "true");
        }
        configs.put(TP.topic(), m);
    }

    private static byte[] framed(int id, String payload) {
        ByteBuffer b = ByteBuffer.allocate(5 + payload.length());
        b.put((byte) 0).putInt(id).put(payload.getBytes(StandardCharsets.UTF_8));
        return b.array();
    }

    private static byte[] protobuf(int id, List<Integer> indexes) {
        byte[] h = WireFormat.header(id, indexes);
        byte[] out = new byte[h.length + 2];
        System.arraycopy(h, 0, out, 0, h.length);
        out[h.length] = 0x08; // field 1, varint 1
        out[h.length + 1] = 0x01;
        return out;
    }

    private static ByteBuffer batch(Compression c, SimpleRecord... records) {
        return MemoryRecords.withRecords(c, records).buffer();
    }

    private static SimpleRecord value(byte[] v) {
        return new SimpleRecord(1_000L, null, v);
    }

    private static SimpleRecord kv(byte[] k, byte[] v) {
        return new SimpleRecord(1_000L, k, v);
    }

    private List<RecordValidationException.RecordError> refused(ByteBuffer b) {
        int before = b.position();
        try {
            guard.check(TP, b, true);
        } catch (RecordValidationException e) {
            assertThat(b.position()).as("the guard never moves the buffer").isEqualTo(before);
            return e.recordErrors();
        }
        throw new AssertionError("the batch passed");
    }

    @Test
    void aTopicWithoutValidationAcceptsAnyBytesAndNeverAsksTheRegistry() {
        Supplier<io.tierlog.registry.SchemaRegistry> none =
                () -> {
                    throw new AssertionError("registry asked");
                };
        SchemaGuard unasked = new SchemaGuard(configs, none, meters);
        assertThat(unasked.check(TP, batch(Compression.NONE, value("plain".getBytes())), false))
                .isTrue();
    }

    @Test
    void everyRefusedValueIsReportedByItsIndexWithItsReasonAndTombstonesPass() {
        validate("confluent.value.schema.validation");
        ByteBuffer b =
                batch(
                        Compression.NONE,
                        value(framed(1, "ok")),
                        value("no header".getBytes()),
                        value(framed(99, "unknown")),
                        value(null), // tombstone
                        value(framed(3, "another subject's")),
                        value(new byte[] {0, 0, 0}), // shorter than a header
                        value(framed(1, "ok again")));
        List<RecordValidationException.RecordError> errors = refused(b);
        assertThat(errors)
                .extracting(RecordValidationException.RecordError::batchIndex)
                .containsExactly(1, 2, 4, 5);
        assertThat(errors.get(0).message()).contains("has no schema id").contains("orders-value");
        assertThat(errors.get(1).message()).contains("schema id 99").contains("does not know");
        assertThat(errors.get(2).message())
                .contains("schema id 3")
                .contains("not registered under subject orders-value");
        assertThat(errors.get(3).message()).contains("has no schema id");
        assertThat(
                        meters.counter(
                                        MetricNames.SCHEMA_VALIDATION_REFUSED,
                                        "part",
                                        "value",
                                        "reason",
                                        "no_header")
                                .count())
                .isEqualTo(2.0);
    }

    @Test
    void theMessageIsKafkasAndNamesTheFirstThreeErrors() {
        validate("confluent.value.schema.validation");
        assertThatThrownBy(
                        () ->
                                guard.check(
                                        TP,
                                        batch(
                                                Compression.NONE,
                                                value("a".getBytes()),
                                                value("b".getBytes()),
                                                value("c".getBytes()),
                                                value("d".getBytes())),
                                        true))
                .isInstanceOf(org.apache.kafka.common.InvalidRecordException.class)
                .hasMessageStartingWith(
                        "One or more records have been rejected due to 4 record errors in total,"
                                + " and only showing the first three errors at most: [RecordError("
                                + "batchIndex=0")
                .hasMessageContaining("batchIndex=2")
                .hasMessageNotContaining("batchIndex=3");
    }

    @Test
    void keysAreCheckedAgainstTheKeySubjectOnlyWhenKeyValidationIsOn() {
        validate("confluent.key.schema.validation");
        ByteBuffer b =
                batch(
                        Compression.NONE,
                        kv(framed(2, "k"), "any value".getBytes()),
                        kv(null, "keyless".getBytes()),
                        kv(framed(1, "value's id as key"), framed(1, "v")));
        List<RecordValidationException.RecordError> errors = refused(b);
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0).batchIndex()).isEqualTo(2);
        assertThat(errors.get(0).message())
                .startsWith("The key")
                .contains("not registered under subject orders-key");
    }

    @Test
    void compressedBatchesAreReadAndReportedByTheSameIndexes() {
        validate("confluent.value.schema.validation", "confluent.key.schema.validation");
        for (Compression c :
                List.of(
                        Compression.gzip().build(),
                        Compression.zstd().build(),
                        Compression.lz4().build(),
                        Compression.snappy().build())) {
            ByteBuffer b =
                    batch(
                            c,
                            kv(framed(2, "k"), framed(1, "v")),
                            kv(framed(2, "k"), "raw".getBytes()),
                            kv("raw key".getBytes(), framed(1, "v")));
            assertThat(refused(b))
                    .as(c.type().name)
                    .extracting(RecordValidationException.RecordError::batchIndex)
                    .containsExactly(1, 2);
        }
    }

    @Test
    void protobufValuesNeedReadableMessageIndexes() {
        validate("confluent.value.schema.validation");
        assertThat(
                        guard.check(
                                TP,
                                batch(
                                        Compression.NONE,
                                        value(protobuf(4, List.of(0))),
                                        value(protobuf(4, List.of(1, 0)))),
                                true))
                .isTrue();
        byte[] truncated = framed(4, ""); // header, then no index count at all
        byte[] negative = {0, 0, 0, 0, 4, 0x02, 0x01}; // count 1, index zigzag(-1)
        List<RecordValidationException.RecordError> errors =
                refused(batch(Compression.NONE, value(truncated), value(negative)));
        assertThat(errors).extracting(e -> e.batchIndex()).containsExactly(0, 1);
        assertThat(errors.get(0).message()).contains("Protobuf schema id 4").contains("indexes");
    }

    @Test
    void theNonBlockingPathUsesOnlyMemoryAndLeavesMissesToTheBlockingOne() {
        validate("confluent.value.schema.validation");
        registry.forget();
        ByteBuffer ok = batch(Compression.NONE, value(framed(1, "ok")));
        assertThat(guard.check(TP, ok, false)).as("a cold cache defers").isFalse();
        assertThat(registry.blockingLookups.get()).isZero();

        assertThat(guard.check(TP, ok, true)).isTrue();
        int lookups = registry.blockingLookups.get();
        assertThat(lookups).isPositive();
        assertThat(guard.check(TP, ok, false)).as("now answered from memory").isTrue();
        assertThat(registry.blockingLookups.get()).isEqualTo(lookups);

        // A record without a header needs no lookup: refused on the event loop itself.
        assertThatThrownBy(
                        () ->
                                guard.check(
                                        TP,
                                        batch(Compression.NONE, value("raw".getBytes())),
                                        false))
                .isInstanceOf(RecordValidationException.class);
        // An unknown id is only known as unknown by asking: deferred, never guessed.
        assertThat(guard.check(TP, batch(Compression.NONE, value(framed(77, "x"))), false))
                .isFalse();
        assertThat(registry.blockingLookups.get()).isEqualTo(lookups);
    }

    @Test
    void aRefusalIsConfirmedFromTheCatalogNotFromStaleMemory() {
        validate("confluent.value.schema.validation");
        registry.registerElsewhere("orders-value", 5, SchemaType.AVRO);
        ByteBuffer b = batch(Compression.NONE, value(framed(5, "registered a moment ago")));
        assertThat(guard.check(TP, b, false)).as("memory says no: confirm off the loop").isFalse();
        assertThat(guard.check(TP, b, true)).isTrue();
    }

    @Test
    void aRegistryThatCannotAnswerRefusesRetriablyAndAcceptsNothing() {
        validate("confluent.value.schema.validation");
        registry.forget();
        registry.failing = true;
        assertThatThrownBy(
                        () -> guard.check(TP, batch(Compression.NONE, value(framed(1, "v"))), true))
                .isInstanceOf(KafkaStorageException.class)
                .hasMessageContaining("orders-value");
        SchemaGuard unwired =
                new SchemaGuard(
                        configs,
                        () -> {
                            throw new UnsupportedOperationException("no registry");
                        },
                        meters);
        assertThatThrownBy(
                        () ->
                                unwired.check(
                                        TP, batch(Compression.NONE, value(framed(1, "v"))), true))
                .isInstanceOf(KafkaStorageException.class)
                .hasMessageContaining("unavailable");
    }

    @Test
    void aDamagedBatchIsCorruptNotASchemaViolation() {
        validate("confluent.value.schema.validation");
        ByteBuffer b = batch(Compression.NONE, value("raw".getBytes()));
        b.put(b.limit() - 1, (byte) (b.get(b.limit() - 1) ^ 0x5a)); // flips a payload byte
        assertThatThrownBy(() -> guard.check(TP, b, true))
                .isInstanceOf(CorruptRecordException.class);
    }

    @Test
    void turningValidationOffAgainTakesEffectAtOnce() {
        validate("confluent.value.schema.validation");
        ByteBuffer raw = batch(Compression.NONE, value("raw".getBytes()));
        assertThatThrownBy(() -> guard.check(TP, raw, true))
                .isInstanceOf(RecordValidationException.class);
        configs.put(TP.topic(), Map.of("confluent.value.schema.validation", "false"));
        assertThat(guard.check(TP, raw, true)).isTrue();
    }

    @Test
    void randomBatchesAreRefusedExactlyAtTheirInvalidRecords() {
        validate("confluent.value.schema.validation", "confluent.key.schema.validation");
        Property.forAll(
                200,
                random -> {
                    int n = Property.between(random, 1, 40);
                    List<SimpleRecord> records = new ArrayList<>();
                    List<Integer> expected = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        int vk = random.nextInt(5);
                        int kk = random.nextInt(4);
                        byte[] v =
                                switch (vk) {
                                    case 0 -> null;
                                    case 1, 2 -> framed(1, "v" + i);
                                    case 3 -> framed(3, "v" + i);
                                    default -> ("raw" + i).getBytes();
                                };
                        byte[] k =
                                switch (kk) {
                                    case 0 -> null;
                                    case 1, 2 -> framed(2, "k" + i);
                                    default -> framed(random.nextInt(1000) + 10, "k");
                                };
                        records.add(kv(k, v));
                        if (vk >= 3 || kk == 3) {
                            expected.add(i);
                        }
                    }
                    Compression c =
                            random.nextBoolean() ? Compression.NONE : Compression.zstd().build();
                    ByteBuffer b = batch(c, records.toArray(new SimpleRecord[0]));
                    if (expected.isEmpty()) {
                        assertThat(guard.check(TP, b, true)).isTrue();
                    } else {
                        assertThat(refused(b))
                                .extracting(RecordValidationException.RecordError::batchIndex)
                                .containsExactlyElementsOf(expected);
                    }
                });
    }
}
