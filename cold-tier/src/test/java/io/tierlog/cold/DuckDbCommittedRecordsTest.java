package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.TxnBatches;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operators' query of docs/formats.md ("Committed records with DuckDB") selects, from a
 * partition's objects, exactly the records a read_committed consumer sees, in its order, also over
 * a mix of format 1 objects (no {@code batch_txn_state}) and format 2 objects.
 */
class DuckDbCommittedRecordsTest {
    @TempDir Path dir;

    /**
     * The query of docs/formats.md (the SQL block under "Committed records with DuckDB"), with its
     * S3 glob replaced by {@code glob}: the docs cannot drift from what this test checks.
     */
    static String committedRecords(String glob) throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "formats.md"));
        int at = doc.indexOf("**Committed records with DuckDB**");
        assertThat(at).as("docs/formats.md has the DuckDB paragraph").isPositive();
        int start = doc.indexOf("```sql\n", at) + "```sql\n".length();
        String sql = doc.substring(start, doc.indexOf("```", start)).trim();
        assertThat(sql).contains("'s3://<bucket>/<s3.prefix>/<topic>/<partition>/*.parquet'");
        return sql.replace("s3://<bucket>/<s3.prefix>/<topic>/<partition>/*.parquet", glob)
                .replaceAll(";$", "");
    }

    @Test
    void theDocumentedQueryReturnsExactlyTheCommittedRecordsInOffsetOrder() throws Exception {
        Path partition = Files.createDirectories(dir.resolve("t/0"));
        TxnBatches h = TxnStateRoundTripTest.history(CompressionType.ZSTD);
        List<Long> expected = new ArrayList<>();
        try (ParquetLogWriter w =
                ParquetLogWriter.open(
                        partition.resolve("a.parquet"), "t", 0, ColdTierOptions.defaults())) {
            for (MemoryRecords m : h.batches()) {
                RecordBatch b = m.firstBatch();
                TxnState s = TxnStateRoundTripTest.stateOf(b);
                w.append(b, s);
                if (!b.isControlBatch() && s != TxnState.ABORTED) {
                    for (Record r : b) {
                        expected.add(r.offset());
                    }
                }
            }
            w.finish();
        }
        assertThat(expected).containsExactly(0L, 1L, 2L, 3L, 4L, 7L, 8L);
        // a format 1 object of the same partition, further on, lacking the column
        long v1Rows = 0;
        try (InputStream in =
                getClass()
                        .getClassLoader()
                        .getResourceAsStream("compat/layout-v1-value-fourth.parquet")) {
            Files.write(partition.resolve("b.parquet"), in.readAllBytes());
        }
        Properties props = new Properties();
        props.setProperty("autoinstall_known_extensions", "false");
        props.setProperty("autoload_known_extensions", "false");
        String glob = partition.toString().replace("'", "''") + "/*.parquet";
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:", props);
                Statement s = c.createStatement()) {
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT count(*) FROM read_parquet('"
                                    + partition.resolve("b.parquet").toString().replace("'", "''")
                                    + "') WHERE NOT batch_is_control")) {
                rs.next();
                v1Rows = rs.getLong(1);
            }
            List<Long> got = new ArrayList<>();
            try (ResultSet rs = s.executeQuery(committedRecords(glob))) {
                while (rs.next()) {
                    got.add(rs.getLong(1));
                }
            }
            assertThat(got).hasSize(expected.size() + (int) v1Rows);
            assertThat(got.subList(0, expected.size())).isEqualTo(expected);
            assertThat(got).isSorted();
            try (ResultSet rs =
                    s.executeQuery(
                            "SELECT batch_txn_state, count(*) FROM read_parquet('"
                                    + partition.resolve("a.parquet").toString().replace("'", "''")
                                    + "') GROUP BY 1 ORDER BY 1")) {
                List<String> states = new ArrayList<>();
                while (rs.next()) {
                    states.add(rs.getString(1) + "=" + rs.getLong(2));
                }
                // aborted: 5-6, 10-11, 12, 13, 14, 15, 16; committed: 3-4, 8, 9; none: 0-2, 7
                assertThat(states).containsExactly("aborted=9", "committed=4", "none=4");
            }
        }
    }
}
