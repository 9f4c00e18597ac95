package io.tierlog.hot;

import static io.tierlog.hot.CompactionKit.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.common.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two cleaner threads clean while one thread appends and two read from the log start, holding each
 * slice a moment before reading its bytes (as a zero-copy fetch does): every append succeeds, every
 * slice read is whole valid batches in ascending offsets (an in-flight read of a replaced segment
 * keeps reading the old file), and once appends stop the cleaned log holds the latest value of
 * every key.
 */
class CleaningWhileServingTest {
    @TempDir Path tmp;

    @Test
    void appendsAndFetchesGoOnWhileTheCleanerRuns() throws Exception {
        LogConfig config =
                compactConfig(Map.of("segment.bytes", "4096", "file.delete.delay.ms", "60000"));
        CleanerConfig cleanerConfig =
                CleanerConfig.from(
                        Config.of(
                                Map.of(
                                        "log.cleaner.threads", "2",
                                        "log.cleaner.backoff.ms", "5")));
        TopicPartition tp = new TopicPartition("t", 0);
        try (LogManager manager = LogManager.open(tmp, t -> config, Time.SYSTEM, null)) {
            PartitionLog log = manager.getOrCreate(tp);
            LogCleaner cleaner = manager.startCleaner(cleanerConfig, TombstoneGate.ALWAYS);
            Map<String, String> latest = new ConcurrentHashMap<>();
            AtomicBoolean done = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<Future<Long>> readers = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    readers.add(pool.submit(() -> readUntil(log, done)));
                }
                Future<?> writer =
                        pool.submit(
                                () -> {
                                    for (int i = 0; i < 4000; i++) {
                                        String key = "k" + (i % 37);
                                        log.append(
                                                batch(
                                                        Compression.NONE,
                                                        List.of(
                                                                new Rec(
                                                                        key,
                                                                        "v" + i,
                                                                        System
                                                                                .currentTimeMillis()))));
                                        latest.put(key, "v" + i);
                                    }
                                    return null;
                                });
                writer.get();
                Await.until(
                        "a cleaning during the appends",
                        () -> cleaner.totals().passes() > 0,
                        Duration.ofSeconds(30));
                done.set(true);
                for (Future<Long> f : readers) {
                    assertThat(f.get()).isPositive();
                }
            } finally {
                done.set(true);
                pool.shutdownNow();
            }
            assertThat(log.logEndOffset()).isEqualTo(4000);
            Map<String, Read> seen = latest(readAll(log));
            for (Map.Entry<String, String> e : latest.entrySet()) {
                assertThat(seen.get(e.getKey()).value()).isEqualTo(e.getValue());
            }
            assertThat(readAll(log).size()).isLessThan(4000);
        }
    }

    /** Reads the log from its start again and again; returns the batches checked. */
    private static long readUntil(PartitionLog log, AtomicBoolean done) throws Exception {
        long checked = 0;
        while (!done.get() || checked == 0) {
            long offset = log.logStartOffset();
            while (offset < log.highWatermark()) {
                FileSlice s = log.read(offset, 2048);
                if (s.isEmpty()) {
                    break;
                }
                Thread.yield(); // the slice is held while the cleaner may swap its segment
                long last = -1;
                for (RecordBatch b : s.batches()) {
                    assertThat(b.isValid()).isTrue();
                    assertThat(b.baseOffset()).isGreaterThan(last);
                    last = b.lastOffset();
                    checked++;
                }
                assertThat(s.nextOffset()).isGreaterThan(offset);
                offset = s.nextOffset();
            }
        }
        return checked;
    }
}
