package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.TestBatches;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cold objects are plain analytics files: DuckDB (an independent Parquet reader) agrees with
 * tierlog on row count, first and last offset, sum of value lengths and null values, sees the
 * timestamp as a UTC timestamp, the field IDs and the tierlog metadata.
 */
class DuckDbInteropTest {
    @TempDir Path dir;

    @Test
    void duckDbReadsTheObjectAndAgreesWithTierlog() throws Exception {
        List<MemoryRecords> input =
                TestBatches.randomBatches(new Random(42), 500, 200, TestBatches.CODECS);
        Path file = dir.resolve("object.parquet");
        WrittenObject written;
        written = TestBatches.writeObject(file, "orders", 3, ColdTierOptions.defaults(), input);
        long rows = 0;
        long valueBytes = 0;
        long nullValues = 0;
        long firstRecordOffset = Long.MAX_VALUE;
        long lastRecordOffset = -1;
        long maxTs = Long.MIN_VALUE;
        for (MemoryRecords m : input) {
            for (RecordBatch b : m.batches()) {
                for (Record r : b) {
                    rows++;
                    firstRecordOffset = Math.min(firstRecordOffset, r.offset());
                    lastRecordOffset = Math.max(lastRecordOffset, r.offset());
                    maxTs = Math.max(maxTs, r.timestamp());
                    if (r.hasValue()) {
                        valueBytes += r.valueSize();
                    } else {
                        nullValues++;
                    }
                }
            }
        }
        assertThat(written.recordCount()).isEqualTo(rows);

        Properties props = new Properties();
        props.setProperty("autoinstall_known_extensions", "false");
        props.setProperty("autoload_known_extensions", "false");
        String f = file.toString().replace("'", "''");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:", props);
                Statement s = c.createStatement()) {
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT count(*), min(\"offset\"), max(\"offset\"),"
                                    + " sum(octet_length(value)), count(*) - count(value),"
                                    + " epoch_ms(max(\"timestamp\")), typeof(max(\"timestamp\"))"
                                    + " FROM read_parquet('"
                                    + f
                                    + "')")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(rows);
                assertThat(rs.getLong(2)).isEqualTo(firstRecordOffset);
                assertThat(rs.getLong(3)).isEqualTo(lastRecordOffset);
                assertThat(rs.getLong(4)).isEqualTo(valueBytes);
                assertThat(rs.getLong(5)).isEqualTo(nullValues);
                assertThat(rs.getLong(6)).isEqualTo(maxTs);
                assertThat(rs.getString(7)).isEqualTo("TIMESTAMP WITH TIME ZONE");
            }
            Map<String, Long> fieldIds = new HashMap<>();
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT name, field_id FROM parquet_schema('"
                                    + f
                                    + "')"
                                    + " WHERE field_id IS NOT NULL")) {
                while (rs.next()) {
                    fieldIds.put(rs.getString(1), rs.getLong(2));
                }
            }
            assertThat(fieldIds)
                    .containsEntry("offset", 1L)
                    .containsEntry("timestamp", 2L)
                    .containsEntry("headers", 5L)
                    .containsEntry("batch_base_offset", 9L);
            Map<String, String> kv = new HashMap<>();
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT decode(key), decode(value) FROM parquet_kv_metadata('"
                                    + f
                                    + "')")) {
                while (rs.next()) {
                    kv.put(rs.getString(1), rs.getString(2));
                }
            }
            assertThat(kv)
                    .containsEntry("tierlog.topic", "orders")
                    .containsEntry("tierlog.partition", "3")
                    .containsEntry("tierlog.first.offset", "500")
                    .containsEntry("tierlog.last.offset", Long.toString(written.lastOffset()))
                    .containsEntry("tierlog.record.count", Long.toString(rows))
                    .containsEntry("tierlog.format.version", "2");
            // header values are readable as a list of structs
            try (ResultSet rs =
                    s.executeQuery("SELECT sum(len(headers)) FROM read_parquet('" + f + "')")) {
                rs.next();
                long headers = 0;
                for (MemoryRecords m : input) {
                    for (RecordBatch b : m.batches()) {
                        for (Record r : b) {
                            headers += r.headers().length;
                        }
                    }
                }
                assertThat(rs.getLong(1)).isEqualTo(headers);
            }
        }
    }
}
