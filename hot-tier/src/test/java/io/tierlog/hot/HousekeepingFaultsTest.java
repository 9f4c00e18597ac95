package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Time;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
                        scheduler,
                        0,
                        tp -> 0L,
                        log -> {
                            if (log.topicPartition().equals(bad)) {
                                int n = badPasses.incrementAndGet();
                                if (n % 2 == 0) {
                                    throw new OutOfMemoryError("Direct buffer memory");
                                }
                                throw new InternalError(
                                        "a fault occurred in a recent unsafe memory access");
                            }
                            goodPasses.incrementAndGet();
                            return Long.MAX_VALUE;
                        })) {
            m.getOrCreate(bad);
            m.getOrCreate(good);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((badPasses.get() < 3 || goodPasses.get() < 3) && System.nanoTime() < deadline) {
                Thread.sleep(50); // polling a counter the scheduler advances every second
            }
            assertThat(badPasses.get())
                    .as("passes over the failing partition")
                    .isGreaterThanOrEqualTo(3);
            assertThat(goodPasses.get())
                    .as("passes over the healthy partition")
                    .isGreaterThanOrEqualTo(3);
        } finally {
            scheduler.shutdownNow();
        }
    }
}
