package io.tierlog.hot;

import static io.tierlog.hot.CompactionKit.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.Property;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random keyed produce sequences (updates, tombstones, codecs, batch sizes, segment sizes, offset
 * map sizes) interleaved with cleanings, time passing and reopens. After each: what a consumer
 * reads from offset 0 is in offset order, every record read is the record appended at that offset
 * (key, value, timestamp, header), the latest value of every key is there at its offset, a
 * tombstone is gone only if no older record of its key is left, and below the cleaner checkpoint no
 * record has a later record of its key also below the checkpoint.
 */
class CleanerPropertiesTest {
    @TempDir Path tmp;

    @Test
    void cleaningKeepsKafkasCompactionGuarantees() {
        Property.forAll(
                25,
                random -> {
                    Path root = Files.createTempDirectory(tmp, "try");
                    check(random, root);
                });
    }

    private static final List<Compression> CODECS =
            List.of(Compression.NONE, Compression.lz4().build(), Compression.zstd().build());

    private void check(Random random, Path root) throws Exception {
        MockTime time = new MockTime(1_700_000_000_000L);
        Map<String, String> settings = new HashMap<>();
        settings.put("segment.bytes", Integer.toString(1024 + random.nextInt(6000)));
        settings.put("delete.retention.ms", Integer.toString(random.nextInt(3000)));
        LogConfig config = compactConfig(settings);
        int keys = 1 + random.nextInt(40);
        long dedupe = random.nextBoolean() ? 1 << 20 : 1024 + random.nextInt(2048);
        Path dir = root.resolve("t-0");
        PartitionLog log = PartitionLog.open(dir, config, time);
        List<PartitionLog> logs = new ArrayList<>(List.of(log));
        LogCleaner cleaner =
                new LogCleaner(root, () -> logs, cleanerConfig(dedupe), TombstoneGate.ALWAYS, time);
        Map<Long, Read> appended = new HashMap<>();
        long next = 0;
        try {
            int steps = 20 + random.nextInt(40);
            for (int step = 0; step < steps; step++) {
                int op = random.nextInt(10);
                if (op < 7) {
                    List<Rec> recs = new ArrayList<>();
                    int n = 1 + random.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        String key = "k" + random.nextInt(keys);
                        String value = random.nextInt(8) == 0 ? null : "v" + next + "-" + i;
                        recs.add(new Rec(key, value, time.milliseconds()));
                    }
                    log.append(batch(CODECS.get(random.nextInt(CODECS.size())), recs));
                    for (Rec r : recs) {
                        appended.put(
                                next,
                                new Read(
                                        next,
                                        r.key(),
                                        r.value(),
                                        r.timestamp(),
                                        "hdr-" + r.value()));
                        next++;
                    }
                } else if (op < 9) {
                    cleaner.cleanAllOnce();
                } else {
                    log.close();
                    log = PartitionLog.open(dir, config, time);
                    logs.set(0, log);
                }
                time.advance(random.nextInt(400));
                verify(log, appended, cleaner.checkpoint(log.topicPartition()).orElse(0L));
            }
        } finally {
            log.close();
        }
    }

    private static void verify(PartitionLog log, Map<Long, Read> appended, long checkpoint)
            throws Exception {
        List<Read> reads = readAll(log); // asserts ascending offsets
        Map<String, Long> latestOffset = new HashMap<>();
        for (Read r : appended.values()) {
            latestOffset.merge(r.key(), r.offset(), Math::max);
        }
        Map<String, Read> seen = latest(reads);
        for (Map.Entry<String, Long> e : latestOffset.entrySet()) {
            Read last = appended.get(e.getValue());
            if (last.value() != null) {
                assertThat(seen.get(e.getKey())).as("latest of %s", e.getKey()).isEqualTo(last);
            } else if (seen.containsKey(e.getKey())) {
                assertThat(seen.get(e.getKey())).as("tombstone of %s", e.getKey()).isEqualTo(last);
            }
        }
        Map<String, Long> lastBelowCheckpoint = new HashMap<>();
        for (Read r : appended.values()) {
            if (r.offset() < checkpoint) {
                lastBelowCheckpoint.merge(r.key(), r.offset(), Math::max);
            }
        }
        for (Read r : reads) {
            assertThat(r).as("record at %d", r.offset()).isEqualTo(appended.get(r.offset()));
            if (r.offset() < checkpoint) {
                assertThat(lastBelowCheckpoint.get(r.key()))
                        .as("superseded record %d below checkpoint %d", r.offset(), checkpoint)
                        .isEqualTo(r.offset());
            }
        }
        assertThat(log.logEndOffset()).isEqualTo(appended.size());
    }
}
