package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerifyIT {
    private static final long BASE_TS = 1_700_000_000_000L;

    @TempDir Path dir;
    EngineFixture fx;
    TieredLog log;

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
        log = fx.open(Map.of("offload.target.object.bytes", "8192"));
        log.createTopic(TP.topic(), 1, Map.of());
        EngineFixture.appendRecords(log, TP, 150, 10, BASE_TS);
        log.maintain();
        assertThat(log.catalog().objects(TP.topic(), 0).size()).isGreaterThan(2);
    }

    @AfterEach
    void tearDown() throws Exception {
        log.close();
        fx.close();
    }

    private void sql(String statement) throws Exception {
        try (Connection c =
                        DriverManager.getConnection(
                                "jdbc:sqlite:" + dir.resolve("data/catalog.db"));
                Statement s = c.createStatement()) {
            assertThat(s.executeUpdate(statement)).isPositive();
        }
    }

    @Test
    void healthyTiersPassShallowAndDeepVerification() {
        assertThat(log.verify(false)).isEmpty();
        assertThat(log.verify(true)).isEmpty();
        List<PartitionReport> reports = log.inspect(java.util.Optional.empty());
        assertThat(reports).hasSize(1);
        PartitionReport r = reports.get(0);
        assertThat(r.coldObjects()).isGreaterThan(2);
        assertThat(r.coldHighWatermark()).isPositive();
        assertThat(r.highWatermark()).isEqualTo(1500);
        assertThat(r.offloadLagOffsets()).isZero();
        assertThat(r.format()).contains("events-0", "cold [0, ");
    }

    @Test
    void detectsAnObjectRangeEditedByHandInTheCatalog() throws Exception {
        long first = log.catalog().objects(TP.topic(), 0).get(1).firstOffset();
        sql(
                "UPDATE cold_objects SET first_offset = first_offset + 3 WHERE first_offset = "
                        + first);
        List<Violation> v = log.verify(false);
        assertThat(v).extracting(Violation::kind).contains(Violation.Kind.COLD_NOT_CONTIGUOUS);
        assertThat(v.toString()).contains("gap");
    }

    @Test
    void detectsACatalogueRowPointingAtAMissingObject() throws Exception {
        String key = log.catalog().objects(TP.topic(), 0).get(0).key();
        sql(
                "UPDATE cold_objects SET object_key = '"
                        + key.replace(".parquet", "x.parquet")
                        + "' WHERE object_key = '"
                        + key
                        + "'");
        assertThat(log.verify(false))
                .extracting(Violation::kind)
                .contains(Violation.Kind.OBJECT_MISSING);
    }

    @Test
    void detectsAnObjectReplacedWithGarbageInTheStore() throws Exception {
        String key = log.catalog().objects(TP.topic(), 0).get(0).key();
        Path file = fx.cold.objectFile(key);
        assertThat(file).exists();
        byte[] bytes = Files.readAllBytes(file);
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) ~bytes[i];
        }
        Files.write(file, bytes);
        assertThat(log.verify(false))
                .extracting(Violation::kind)
                .contains(Violation.Kind.OBJECT_UNREADABLE);
    }

    /**
     * A cleaned hot segment starts above its file's base offset and has gaps between batches: that
     * is the cleaner's normal output, so a deep verify of a compacted topic after the cleaner ran
     * (and after a restart without the cleaner's checkpoint files) reports nothing.
     */
    @Test
    void deepVerifyAcceptsTheOffsetGapsOfCleanedHotSegments() throws Exception {
        TopicPartition tp = new TopicPartition("table", 0);
        Map<String, String> cfg =
                Map.of(
                        "cleanup.policy", "compact",
                        "segment.bytes", "1024",
                        "min.cleanable.dirty.ratio", "0.01",
                        "offload.target.object.bytes", "8192");
        log.close();
        log = fx.open(cfg);
        log.createTopic(tp.topic(), 1, Map.of());
        for (int i = 0; i < 400; i++) {
            log.append(tp, CompactedTopicEngineTest.keyed("k" + (i % 5), "v" + i));
        }
        assertThat(log.logManager().cleaner().orElseThrow().cleanAllOnce()).isPositive();
        assertThat(log.verify(true)).isEmpty();
        log.close();
        // Recovery accepts gaps in a compacted topic's log even where no cleaner checkpoint names
        // it (PartitionLog.mayHaveOffsetGaps); a deep verify follows the same rule.
        Path logDir = dir.resolve("data/log");
        Files.deleteIfExists(logDir.resolve("cleaner-offset-checkpoint"));
        Files.deleteIfExists(logDir.resolve("cleaner-last-cleaning-checkpoint"));
        log = fx.open(cfg);
        assertThat(log.verify(true)).isEmpty();
    }
}
