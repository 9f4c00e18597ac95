package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.TestBatches;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Timestamp lookup inside an object agrees with a linear scan of the original records: the first
 * record in offset order whose timestamp is at least T (timestamps are not monotonic in Kafka).
 */
class TimestampLookupTest {
    static Path dir;
    static ParquetLogReader reader;
    static List<long[]> records = new ArrayList<>(); // {offset, timestamp}

    @BeforeContainer
    static void writeObject() throws Exception {
        dir = Files.createTempDirectory("ts-lookup");
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

    @AfterContainer
    static void cleanUp() throws Exception {
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Property(tries = 60)
    void lookupMatchesALinearScan(
            @ForAll @LongRange(min = 1_699_999_990_000L, max = 1_700_003_000_000L) long ts)
            throws Exception {
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
