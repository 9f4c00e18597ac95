package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ListOffsets -3 when the largest timestamp lives only in the cold tier, in the middle of a batch
 * in the middle of an object: the answer is that record's offset (as Kafka finds it in a segment),
 * not the end of its object.
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
}
