package io.tierlog.hot;

import io.tierlog.common.Time;
import io.tierlog.common.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduled housekeeping of a log dir survives any throwable from one partition's pass: a
 * {@code ScheduledExecutorService} silently stops repeating a task that throws, which used to end
 * rolls, flushes, retention, checkpoints and (now) offline recovery for the whole log dir.
 */
class HousekeepingFaultsTest {
    @TempDir Path tmp;

    @Test
    void housekeepingThatThrowsErrorsKeepsBeingScheduledAndServesEveryPartition() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        TopicPartition bad = new TopicPartition("bad", 0);
        TopicPartition good = new TopicPartition("good", 0);
        AtomicInteger badPasses = new AtomicInteger();
        AtomicInteger goodPasses = new AtomicInteger();
        try (LogManager m =
                LogManager.open(
                        tmp.resolve("log"),
                        t -> LogConfig.from(Map.of()),
                        Time.SYSTEM,
                        scheduler)) {
            m.getOrCreate(bad);
            m.getOrCreate(good);
            m.setRetentionBound(
                    tp -> {
                        if (tp.equals(bad)) {
                            int n = badPasses.incrementAndGet();
                            if (n % 2 == 0) {
                                throw new OutOfMemoryError("Direct buffer memory");
                            }
                            throw new InternalError(
                                    "a fault occurred in a recent unsafe memory access");
                        }
                        goodPasses.incrementAndGet();
                        return Long.MAX_VALUE;
                    });
            // counters the scheduler advances every second
            Await.until(
                    "3 passes over the failing and 3 over the healthy partition",
                    () -> "failing " + badPasses.get() + ", healthy " + goodPasses.get(),
                    passes -> badPasses.get() >= 3 && goodPasses.get() >= 3,
                    Duration.ofSeconds(30));
        } finally {
            scheduler.shutdownNow();
        }
    }
}
