package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.registry.SchemaType;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An embedder's {@code TieredLog} enforces a topic's schema contract with the registry its catalog
 * holds, with no server in between: a refused batch throws {@link RecordValidationException} with
 * the records' indexes and the log's end does not move; after a restart (the registry's memory
 * empty) the non-blocking append declines a valid batch instead of asking the catalog, and takes it
 * once the blocking append has.
 */
class EmbeddedSchemaValidationTest {
    @TempDir Path dir;

    private static final TopicPartition TP = new TopicPartition("orders", 0);

    private static byte[] framed(int id, String payload) {
        byte[] p = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + p.length).put((byte) 0).putInt(id).put(p).array();
    }

    private static ByteBuffer batch(byte[]... values) {
        SimpleRecord[] r = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            r[i] = new SimpleRecord(1_000L + i, null, values[i]);
        }
        return MemoryRecords.withRecords(Compression.NONE, r).buffer();
    }

    @Test
    void theEnginesWriteDoorRefusesByIndexAndDefersMissesOffTheNonBlockingPath() throws Exception {
        int id;
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            log.createTopic("orders", 1, Map.of("confluent.value.schema.validation", "true"));
            id =
                    log.schemaRegistry()
                            .register(
                                    "orders-value",
                                    SchemaType.AVRO,
                                    "{\"type\":\"record\",\"name\":\"Order\",\"fields\":"
                                            + "[{\"name\":\"amount\",\"type\":\"long\"}]}",
                                    List.of(),
                                    false)
                            .schema()
                            .id();
            assertThat(log.append(TP, batch(framed(id, "a"))).firstOffset()).isZero();
            assertThatThrownBy(
                            () ->
                                    log.append(
                                            TP,
                                            batch(
                                                    framed(id, "b"),
                                                    framed(id + 100, "c"),
                                                    "d".getBytes(),
                                                    null)))
                    .isInstanceOfSatisfying(
                            RecordValidationException.class,
                            e ->
                                    assertThat(e.recordErrors())
                                            .extracting(
                                                    RecordValidationException.RecordError
                                                            ::batchIndex)
                                            .containsExactly(1, 2));
            assertThat(log.offsets(TP).highWatermark()).isEqualTo(1);
        }
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            ByteBuffer valid = batch(framed(id, "e"));
            assertThat(log.appendWithoutBlocking(TP, valid.duplicate()))
                    .as("the registry's memory is empty after a restart: declined, not blocked")
                    .isEmpty();
            assertThat(log.offsets(TP).highWatermark()).isEqualTo(1);
            assertThat(log.append(TP, valid.duplicate()).firstOffset()).isEqualTo(1);
            assertThat(log.appendWithoutBlocking(TP, batch(framed(id, "f"))))
                    .hasValueSatisfying(a -> assertThat(a.firstOffset()).isEqualTo(2));
        }
    }
}
