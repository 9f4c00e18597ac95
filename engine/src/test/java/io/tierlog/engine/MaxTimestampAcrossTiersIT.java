package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ListOffsets -3 when the largest timestamp lives only in the cold tier, in the middle of a batch
 * in the middle of an object: the answer is that record's offset (as Kafka finds it in a segment),
 * not the end of its object. After DeleteRecords, only records at or above the log start count,
 * also when the largest timestamp sits below it in a cold object or hot segment that straddles it.
 */
class MaxTimestampAcrossTiersIT {
    private static final long BASE_TS = 1_700_000_000_000L;
    private static final long LATE = BASE_TS + 1_000_000_000L;

    @TempDir Path dir;

    @Test
    void aColdMaximumIsTheOffsetOfItsRecordNotTheEndOfItsObject() throws Exception {
        try (EngineFixture fx = new EngineFixture(dir);
                TieredLog log = fx.open(Map.of("local.retention.bytes", "32768"))) {
            log.topicRegistry().create(TP.topic(), 1, Map.of(), false);
            EngineFixture.appendRecords(log, TP, 10, 20, BASE_TS);
            long outlier = log.latestOffset(TP) + 2;
            SimpleRecord[] recs = new SimpleRecord[5];
            for (int i = 0; i < recs.length; i++) {
                long ts = i == 2 ? LATE : BASE_TS + outlier - 2 + i;
                recs[i] = new SimpleRecord(ts, null, "v".getBytes(StandardCharsets.UTF_8));
            }
            log.append(TP, MemoryRecords.withRecords(Compression.NONE, recs).buffer());
            EngineFixture.appendRecords(log, TP, 60, 20, BASE_TS + 5);
            log.maintain();
            LogOffsets o = log.offsets(TP);
            assertThat(o.hotLogStartOffset()).as("the outlier is cold only").isGreaterThan(outlier);
            assertThat(o.coldHighWatermark()).isGreaterThan(outlier + 5);

            TimestampOffset max = log.maxTimestamp(TP).orElseThrow();
            assertThat(max.timestamp()).isEqualTo(LATE);
            assertThat(max.offset()).isEqualTo(outlier);
        }
    }

    @Test
    void aColdMaximumBelowTheLogStartInAStraddlingObjectDoesNotCount() throws Exception {
        try (EngineFixture fx = new EngineFixture(dir);
                TieredLog log = fx.open(Map.of("local.retention.bytes", "32768"))) {
            long outlier = appendOutlierThenOlderRecords(log);
            log.maintain();
            assertThat(log.offsets(TP).hotLogStartOffset())
                    .as("the straddling batch is cold only")
                    .isGreaterThan(outlier + 2);
            assertMaxAfterDeletingTheOutlier(log, outlier);
        }
    }

    @Test
    void aStraddlingObjectThatCannotBeReadFailsRetriablyThenAnswersOnceTheStoreIsBack()
            throws Exception {
        try (EngineFixture fx = new EngineFixture(dir);
                TieredLog log = fx.open(Map.of("local.retention.bytes", "32768"))) {
            long outlier = appendOutlierThenOlderRecords(log);
            log.maintain();
            assertThat(log.deleteRecords(TP, outlier + 1)).isEqualTo(outlier + 1);
            fx.stopS3();
            assertThatThrownBy(() -> log.maxTimestamp(TP))
                    .as("no answer it cannot vouch for")
                    .isInstanceOf(ColdReadException.class)
                    .isInstanceOf(RetriableException.class);
            fx.startS3();
            assertThat(log.maxTimestamp(TP))
                    .contains(new TimestampOffset(BASE_TS + outlier + 2, outlier + 2));
        }
    }

    @Test
    void aHotMaximumBelowTheLogStartInAStraddlingSegmentDoesNotCount() throws Exception {
        try (EngineFixture fx = new EngineFixture(dir);
                TieredLog log = fx.open(Map.of())) {
            long outlier = appendOutlierThenOlderRecords(log);
            assertThat(log.offsets(TP).hotLogStartOffset()).isZero();
            assertMaxAfterDeletingTheOutlier(log, outlier);
        }
    }

    /**
     * Records with increasing timestamps, then a batch of five whose middle record (the returned
     * offset) is far later, then records older than all of those: the largest timestamp at or above
     * the outlier + 1 is then the outlier batch's last record, outlier + 2.
     */
    private static long appendOutlierThenOlderRecords(TieredLog log) throws Exception {
        log.topicRegistry().create(TP.topic(), 1, Map.of(), false);
        EngineFixture.appendRecords(log, TP, 10, 20, BASE_TS);
        long outlier = log.latestOffset(TP) + 2;
        SimpleRecord[] recs = new SimpleRecord[5];
        for (int i = 0; i < recs.length; i++) {
            long ts = i == 2 ? LATE : BASE_TS + outlier - 2 + i;
            recs[i] = new SimpleRecord(ts, null, "v".getBytes(StandardCharsets.UTF_8));
        }
        log.append(TP, MemoryRecords.withRecords(Compression.NONE, recs).buffer());
        EngineFixture.appendRecords(log, TP, 60, 20, BASE_TS - 1_000_000L);
        return outlier;
    }

    private static void assertMaxAfterDeletingTheOutlier(TieredLog log, long outlier)
            throws Exception {
        assertThat(log.maxTimestamp(TP).orElseThrow().timestamp()).isEqualTo(LATE);
        long start = log.deleteRecords(TP, outlier + 1);
        assertThat(start).isEqualTo(outlier + 1);
        TimestampOffset max = log.maxTimestamp(TP).orElseThrow();
        assertThat(max.offset()).as("never below the log start").isGreaterThanOrEqualTo(start);
        assertThat(max).isEqualTo(new TimestampOffset(BASE_TS + outlier + 2, outlier + 2));
        // a timestamp search from the same straddling batch answers at or above the log start too
        assertThat(log.offsetForTimestamp(TP, BASE_TS + outlier + 1).get(30, TimeUnit.SECONDS))
                .contains(new TimestampOffset(BASE_TS + outlier + 1, outlier + 1));
        assertThat(log.offsetForTimestamp(TP, LATE).get(30, TimeUnit.SECONDS))
                .as("the only record that late is deleted")
                .isEmpty();
    }
}
