package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LogConfig#withWallClockRollMs}: the active segment rolls that long after its first append
 * by the log's clock, not by record timestamps, never while empty, and only when the clock moves.
 */
class WallClockRollTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);

    /** Records stamped a year ago: segment.ms by record time would roll at once. */
    final RandomBatches oldRecords = new RandomBatches(5, 1_700_000_000_000L - 365L * 86_400_000);

    @Test
    void rollsAfterTheWallClockAgeOfTheFirstAppendOnlyWhenTheClockMoves() throws Exception {
        LogConfig config =
                LogConfig.from(Map.of("segment.ms", "86400000")).withWallClockRollMs(500);
        try (PartitionLog log = PartitionLog.open(tmp.resolve("w-0"), config, time)) {
            time.advance(10_000);
            log.maybeRoll();
            assertThat(log.segments()).as("an empty segment never rolls").hasSize(1);
            log.append(oldRecords.batch());
            log.append(oldRecords.batch());
            log.maybeRoll();
            assertThat(log.segments()).as("old record timestamps do not roll").hasSize(1);
            time.advance(499);
            log.maybeRoll();
            assertThat(log.segments()).hasSize(1);
            time.advance(1);
            log.maybeRoll();
            assertThat(log.segments()).as("idle partition rolled by housekeeping").hasSize(2);
            time.advance(10_000);
            log.maybeRoll();
            assertThat(log.segments()).as("the new active segment is empty").hasSize(2);
        }
    }

    @Test
    void anAppendPastTheAgeRollsFirst() throws Exception {
        LogConfig config = LogConfig.defaults().withWallClockRollMs(1000);
        try (PartitionLog log = PartitionLog.open(tmp.resolve("a-0"), config, time)) {
            log.append(oldRecords.batch());
            time.advance(1000);
            log.append(oldRecords.batch());
            assertThat(log.segments()).hasSize(2);
            assertThat(log.segments().get(1).baseOffset()).isGreaterThan(0);
        }
    }

    @Test
    void withoutTheSettingOnlySegmentMsCounts() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("n-0"), LogConfig.defaults(), time)) {
            log.append(oldRecords.batch());
            time.advance(3_600_000);
            log.maybeRoll();
            assertThat(log.segments()).hasSize(1);
            assertThat(LogConfig.defaults().wallClockRollMs()).isEqualTo(-1);
        }
    }

    @Test
    void aRecoveredSegmentCountsItsAgeFromTheFirstCheck() throws Exception {
        Path dir = tmp.resolve("r-0");
        try (PartitionLog log = PartitionLog.open(dir, LogConfig.defaults(), time)) {
            log.append(oldRecords.batch());
        }
        time.advance(86_400_000);
        // segment.ms past the records' age, so that only the wall-clock age can roll it
        LogConfig config =
                LogConfig.from(Map.of("segment.ms", "315360000000")).withWallClockRollMs(1000);
        try (PartitionLog log = PartitionLog.open(dir, config, time)) {
            log.maybeRoll();
            assertThat(log.segments()).hasSize(1);
            time.advance(1000);
            log.maybeRoll();
            assertThat(log.segments()).hasSize(2);
        }
    }
}
