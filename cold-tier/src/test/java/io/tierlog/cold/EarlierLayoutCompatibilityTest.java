package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.LocalDirObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Objects already in buckets keep reading: {@code compat/layout-v1-value-fourth.parquet} was
 * written by the first release's writer (format version 1 with {@code value} as the fourth column;
 * ten random batches of every Kafka codec, headers, nulls, gaps and a transaction marker; {@code
 * .batches} holds the source batches). The current layout puts the values last.
 */
class EarlierLayoutCompatibilityTest {
    @TempDir Path dir;

    @Test
    void objectsWrittenWithValueAsTheFourthColumnStillReadBatchForBatch() throws IOException {
        byte[] object = resource("compat/layout-v1-value-fourth.parquet");
        List<RecordBatch> original = new ArrayList<>();
        MemoryRecords.readableRecords(
                        ByteBuffer.wrap(resource("compat/layout-v1-value-fourth.batches")))
                .batches()
                .forEach(original::add);
        assertThat(original).hasSize(10);
        LocalDirObjectStore store = new LocalDirObjectStore(dir);
        store.put("old", object);
        ParquetLogReader reader = new ParquetLogReader(store, "old", object.length);
        for (int maxBytes : new int[] {1, 10_000, Integer.MAX_VALUE}) {
            List<RecordBatch> got = new ArrayList<>();
            long next = original.get(0).baseOffset();
            while (next <= original.get(original.size() - 1).lastOffset()) {
                for (RecordBatch b : reader.read(next, maxBytes).batches()) {
                    got.add(b);
                    next = b.lastOffset() + 1;
                }
            }
            BatchFidelityPropertyTest.assertSameBatches(got, original);
        }
        assertThat(reader.pageMap()).as("read by the columnar reader").isNotNull();
        // no batch_txn_state: the marker's outcome comes from its own key
        ColdBatches c = reader.readBatches(original.get(0).baseOffset(), Integer.MAX_VALUE);
        assertThat(original).anyMatch(RecordBatch::isControlBatch);
        assertThat(reader.formatVersion()).isEqualTo(1);
        assertThat(c.txnStatesStored()).isFalse();
        for (RecordBatch b : c.records().batches()) {
            if (b.isControlBatch()) {
                assertThat(c.txnState(b)).isEqualTo(TxnState.ofMarker(b));
            } else if (!b.isTransactional()) {
                assertThat(c.txnState(b)).isEqualTo(TxnState.NONE);
            }
        }
    }

    @Test
    void fieldIndexesOfTheWriterMatchTheSchemaOrderWithValuesLast() {
        MessageType s = ColdLayout.SCHEMA;
        assertThat(s.getFieldIndex(ColdLayout.OFFSET)).isEqualTo(ColdLayout.F_OFFSET);
        assertThat(s.getFieldIndex(ColdLayout.TIMESTAMP)).isEqualTo(ColdLayout.F_TIMESTAMP);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_BASE_OFFSET))
                .isEqualTo(ColdLayout.F_BATCH_BASE_OFFSET);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_LAST_OFFSET_DELTA))
                .isEqualTo(ColdLayout.F_BATCH_LAST_OFFSET_DELTA);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_PARTITION_LEADER_EPOCH))
                .isEqualTo(ColdLayout.F_BATCH_PARTITION_LEADER_EPOCH);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_PRODUCER_ID))
                .isEqualTo(ColdLayout.F_BATCH_PRODUCER_ID);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_PRODUCER_EPOCH))
                .isEqualTo(ColdLayout.F_BATCH_PRODUCER_EPOCH);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_BASE_SEQUENCE))
                .isEqualTo(ColdLayout.F_BATCH_BASE_SEQUENCE);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_ATTRIBUTES))
                .isEqualTo(ColdLayout.F_BATCH_ATTRIBUTES);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_BASE_TIMESTAMP))
                .isEqualTo(ColdLayout.F_BATCH_BASE_TIMESTAMP);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_MAX_TIMESTAMP))
                .isEqualTo(ColdLayout.F_BATCH_MAX_TIMESTAMP);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_COMPRESSION))
                .isEqualTo(ColdLayout.F_BATCH_COMPRESSION);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_IS_TRANSACTIONAL))
                .isEqualTo(ColdLayout.F_BATCH_IS_TRANSACTIONAL);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_IS_CONTROL))
                .isEqualTo(ColdLayout.F_BATCH_IS_CONTROL);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_LAST_OFFSET))
                .isEqualTo(ColdLayout.F_BATCH_LAST_OFFSET);
        assertThat(s.getFieldIndex(ColdLayout.BATCH_TXN_STATE))
                .isEqualTo(ColdLayout.F_BATCH_TXN_STATE);
        assertThat(s.getFieldIndex(ColdLayout.HEADERS)).isEqualTo(ColdLayout.F_HEADERS);
        assertThat(s.getFieldIndex(ColdLayout.KEY)).isEqualTo(ColdLayout.F_KEY);
        assertThat(s.getFieldIndex(ColdLayout.VALUE))
                .isEqualTo(ColdLayout.F_VALUE)
                .isEqualTo(s.getFieldCount() - 1);
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in =
                EarlierLayoutCompatibilityTest.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }
}
