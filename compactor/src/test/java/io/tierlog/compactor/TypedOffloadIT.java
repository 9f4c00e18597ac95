package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectFooter;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.cold.TypedColumns;
import io.tierlog.cold.TypedCounts;
import io.tierlog.cold.testing.ToyTyper;
import io.tierlog.common.MockTime;
import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offload and cold compaction with typed columns (the test-jar's {@link ToyTyper}, no registry):
 * the cold tier gives back every record exactly, whether values were stored once or twice, the
 * listener counts typed, stored-once and undecodable records by reason, and cold compaction reads
 * values stored once (through the source's rebuilder) and keeps them exact.
 */
class TypedOffloadIT {
    static final String TOPIC = "orders";
    static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;
    SegmentFiles log;
    Map<String, String> settings;
    final AtomicLong typed = new AtomicLong();
    final AtomicLong rebuilt = new AtomicLong();
    final Map<String, Long> failures = new ConcurrentHashMap<>();

    /** Toy typed columns, one copy or two. */
    static TypedColumnsSource toy(boolean oneCopy) {
        return new TypedColumnsSource() {
            @Override
            public TypedColumns forObject(String topic) {
                return new TypedColumns(new ToyTyper(), new ToyTyper(), oneCopy);
            }

            @Override
            public ValueRebuilder rebuilder() {
                return ToyTyper.rebuilder();
            }
        };
    }

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        log = new SegmentFiles(dir.resolve("log"), 3);
        settings = new HashMap<>();
        settings.put(CompactorOptions.OFFLOAD_TMP_DIR.key(), dir.resolve("tmp").toString());
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "4KiB");
        settings.put(CompactorOptions.OFFLOAD_RETRY_BACKOFF_MS.key(), "1ms");
        settings.put(CompactorOptions.OFFLOAD_RETRY_TIMEOUT_MS.key(), "5s");
        cold.catalog().createTopic(TOPIC, 1, Map.of("cleanup.policy", "compact"));
        Random rnd = new Random(5);
        for (int s = 0; s < 4; s++) {
            for (int b = 0; b < 6; b++) {
                String[] kv = new String[10];
                for (int i = 0; i < 5; i++) {
                    kv[2 * i] = "k" + rnd.nextInt(15);
                    kv[2 * i + 1] =
                            rnd.nextInt(9) == 0
                                    ? null
                                    : new String(
                                            ToyTyper.randomPayload(rnd), StandardCharsets.US_ASCII);
                }
                log.appendKeyed(TP, b % 2 == 0 ? CompressionType.NONE : CompressionType.ZSTD, kv);
            }
            log.roll(TP);
        }
    }

    Compactor compactor(TypedColumnsSource source) throws Exception {
        Compactor c =
                Compactor.create(
                        log,
                        Optional.of(log.dir()),
                        cold.catalog(),
                        cold.store(),
                        cold.config(settings),
                        new MockTime(1_800_000_000_000L));
        c.setTypedColumns(source);
        c.addListener(
                new OffloadListener() {
                    @Override
                    public void onTypedColumns(TopicPartition tp, TypedCounts counts) {
                        typed.addAndGet(counts.valuesTyped());
                        rebuilt.addAndGet(counts.valuesRebuilt());
                        counts.valueFailures().forEach((r, n) -> failures.merge(r, n, Long::sum));
                    }
                });
        return c;
    }

    @Test
    void oneCopyOffloadReadsBackEveryRecordExactlyAndCountsOutcomesByReason() throws Exception {
        settings.put(CompactorOptions.COLD_CLEANER_ENABLE.key(), "false");
        try (Compactor c = compactor(toy(true))) {
            assertThat(c.runOnce().failedPartitions()).isZero();
        }
        assertThat(SegmentFiles.describe(cold.readBack(TOPIC, 0, ToyTyper.rebuilder())))
                .isEqualTo(SegmentFiles.describe(log.allBatches(TP)));
        assertThat(rebuilt.get()).isPositive();
        assertThat(typed.get()).isGreaterThanOrEqualTo(rebuilt.get());
        assertThat(failures.keySet()).contains("no-header", "unknown-id", "not-in-subject");
        long stored = 0;
        for (ColdObject o : cold.catalog().objects(TOPIC, 0)) {
            ObjectFooter f = ObjectFooter.read(cold.store(), o.key(), o.sizeInBytes());
            assertThat(f.formatVersion()).isEqualTo(3);
            stored += new ParquetLogReader(cold.store(), o.key(), o.sizeInBytes()).rebuiltValues();
        }
        assertThat(stored).isEqualTo(rebuilt.get());
    }

    @Test
    void twoCopyOffloadReadsBackTheSameRecordsWithoutARebuilder() throws Exception {
        settings.put(CompactorOptions.COLD_CLEANER_ENABLE.key(), "false");
        try (Compactor c = compactor(toy(false))) {
            assertThat(c.runOnce().failedPartitions()).isZero();
        }
        assertThat(SegmentFiles.describe(cold.readBack(TOPIC, 0)))
                .isEqualTo(SegmentFiles.describe(log.allBatches(TP)));
        assertThat(rebuilt.get()).isZero();
        assertThat(typed.get()).isPositive();
    }

    @Test
    void coldCompactionReadsValuesStoredOnceAndKeepsTheLatestOfEveryKeyExact() throws Exception {
        settings.put(CompactorOptions.COLD_CLEANER_ENABLE.key(), "false");
        try (Compactor c = compactor(toy(true))) {
            c.runOnce();
        }
        List<String> before = SegmentFiles.describe(cold.readBack(TOPIC, 0, ToyTyper.rebuilder()));
        settings.remove(CompactorOptions.COLD_CLEANER_ENABLE.key());
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "64KiB");
        try (Compactor c = compactor(toy(true))) {
            Compactor.ColdCompactionResult r = c.runColdCompactionOnce();
            assertThat(r.failedPartitions()).isZero();
            assertThat(r.runsCommitted()).isPositive();
        }
        Map<String, String> latest = new HashMap<>();
        for (String rec : before) {
            latest.put(keyOf(rec), rec);
        }
        List<String> after = SegmentFiles.describe(cold.readBack(TOPIC, 0, ToyTyper.rebuilder()));
        assertThat(after).containsExactlyInAnyOrderElementsOf(latest.values());
        for (ColdObject o : cold.catalog().objects(TOPIC, 0)) {
            assertThat(new ParquetLogReader(cold.store(), o.key(), o.sizeInBytes()).rebuiltValues())
                    .as("the compacted object stores values once too")
                    .isPositive();
        }
    }

    /** The key of a record described by {@link SegmentFiles#describe}: "offset@ts key=value". */
    private static String keyOf(String described) {
        int sp = described.indexOf(' ');
        return described.substring(sp + 1, described.indexOf('=', sp));
    }
}
