package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.TestBatches;
import io.tierlog.common.testing.Property;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Timestamp lookup inside an object agrees with a linear scan of the original records: the first
 * record in offset order whose timestamp is at least T (timestamps are not monotonic in Kafka).
 * Targets are random over the whole range, and a third of them sit on or next to a stored
 * timestamp, where an off-by-one would show. Seeded and reproducible (see {@link Property}).
 */
class TimestampLookupTest {
    private static final long MIN_TS = 1_699_999_990_000L;
    private static final long MAX_TS = 1_700_003_000_000L;

    @TempDir static Path dir;
    static ParquetLogReader reader;
    static List<long[]> records = new ArrayList<>(); // {offset, timestamp}

    @BeforeAll
    static void writeObject() throws Exception {
        List<MemoryRecords> input =
                TestBatches.randomBatches(new Random(11), 0, 150, TestBatches.CODECS);
        Path f = dir.resolve("o.parquet");
        try (ParquetLogWriter w =
                ParquetLogWriter.open(
                        f,
                        "t",
                        0,
                        ColdTierOptions.defaults()
                                .with(ColdTierOptions.COLD_PAGE_ROW_LIMIT, "100"))) {
            for (MemoryRecords m : input) {
                RecordBatch b = m.firstBatch();
                w.append(b);
                for (Record r : b) {
                    records.add(new long[] {r.offset(), r.timestamp()});
                }
            }
            w.finish();
        }
        LocalDirObjectStore store = new LocalDirObjectStore(dir.resolve("s"));
        store.put("o", f);
        reader = new ParquetLogReader(store, "o", Files.size(f));
    }

    @Test
    void lookupMatchesALinearScan() {
        Property.forAll(
                60,
                r -> {
                    long ts =
                            r.nextInt(3) == 0
                                    ? records.get(r.nextInt(records.size()))[1] + r.nextInt(3) - 1
                                    : Property.between(r, MIN_TS, MAX_TS);
                    lookupAgreesWithScan(ts);
                });
    }

    private static void lookupAgreesWithScan(long ts) throws Exception {
        Optional<OffsetAndTimestamp> expected = Optional.empty();
        for (long[] r : records) {
            if (r[1] >= ts) {
                expected = Optional.of(new OffsetAndTimestamp(r[0], r[1]));
                break;
            }
        }
        assertThat(reader.offsetForTimestamp(ts)).isEqualTo(expected);
    }
}
