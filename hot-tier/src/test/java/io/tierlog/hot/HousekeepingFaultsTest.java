package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.ManualScheduler;
import java.nio.file.Path;
import java.util.Map;
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
        MockTime time = new MockTime();
        ManualScheduler scheduler = new ManualScheduler(time);
        TopicPartition bad = new TopicPartition("bad", 0);
        TopicPartition good = new TopicPartition("good", 0);
        AtomicInteger badPasses = new AtomicInteger();
        AtomicInteger goodPasses = new AtomicInteger();
        try (LogManager m =
                LogManager.open(
                        tmp.resolve("log"),
                        t -> LogConfig.from(Map.of()),
                        time,
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
            scheduler.advance(3 * LogManager.HOUSEKEEPING_INTERVAL_MS);
            assertThat(badPasses.get()).as("passes over the failing partition").isEqualTo(3);
            assertThat(goodPasses.get()).as("passes over the healthy partition").isEqualTo(3);
        } finally {
            scheduler.shutdownNow();
        }
    }
}
