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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer's walk of a compacted log of tiny segments while a throttled cleaner swaps its groups
 * (every dirty segment its own group, most cleaned to a lone empty batch): every read below the
 * high watermark returns a batch that ends at or past the read offset, so the next read starts
 * further on (a read that answered empty below the high watermark would have a consumer fetch the
 * same offset forever).
 */
class ReadsProgressWhileCleaningTest {
    @TempDir Path tmp;

    @Test
    void everyReadBelowTheHighWatermarkMovesTheReaderOnWhileGroupsAreSwapped() throws Exception {
        LogConfig config =
                compactConfig(Map.of("segment.bytes", "4096", "file.delete.delay.ms", "60000"));
        TopicPartition tp = new TopicPartition("t", 0);
        try (LogManager manager = LogManager.open(tmp, t -> config, Time.SYSTEM, null)) {
            PartitionLog log = manager.getOrCreate(tp);
            for (int i = 0; i < 20000; i++) {
                String key = "k" + (i % 35);
                log.append(
                        batch(
                                Compression.NONE,
                                List.of(new Rec(key, key + ":" + i, System.currentTimeMillis()))));
            }
            List<String> stalls = new CopyOnWriteArrayList<>();
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong walks = new AtomicLong();
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                Thread r = new Thread(() -> walkUntil(log, done, walks, stalls));
                r.start();
                readers.add(r);
            }
            LogCleaner cleaner =
                    manager.startCleaner(
                            CleanerConfig.from(
                                    Config.of(
                                            Map.of(
                                                    "log.cleaner.threads", "1",
                                                    "log.cleaner.backoff.ms", "5",
                                                    "log.cleaner.io.max.bytes.per.second",
                                                            "2000000"))),
                            TombstoneGate.ALWAYS);
            for (int i = 20000; i < 26000; i++) {
                String key = "k" + (i % 35);
                log.append(
                        batch(
                                Compression.NONE,
                                List.of(new Rec(key, key + ":" + i, System.currentTimeMillis()))));
                if (i % 100 == 0) {
                    Thread.sleep(10);
                }
            }
            Await.until(
                    "two cleaning passes",
                    () -> cleaner.totals().passes() >= 2,
                    Duration.ofSeconds(60));
            done.set(true);
            for (Thread r : readers) {
                r.join();
            }
            assertThat(stalls).as("reads that did not move on").isEmpty();
            assertThat(walks.get()).as("walks from offset 0 to the high watermark").isPositive();
        }
    }

    /**
     * Walks the log from offset 0 to its high watermark, again and again until {@code done},
     * recording every read that does not move on (then stepping over one offset).
     */
    private static void walkUntil(
            PartitionLog log, AtomicBoolean done, AtomicLong walks, List<String> stalls) {
        try {
            while (!done.get()) {
                long offset = 0;
                long hw = log.highWatermark();
                while (offset < hw) {
                    FileSlice s = log.read(offset, 1 << 20);
                    if (s.isEmpty() || s.nextOffset() <= offset) {
                        stalls.add("read at " + offset + " of " + hw + ": " + s);
                        offset++;
                    } else {
                        offset = s.nextOffset();
                    }
                }
                walks.incrementAndGet();
            }
        } catch (Exception e) {
            stalls.add(e.toString());
        }
    }
}
