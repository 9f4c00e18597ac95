package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Time;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Lock-free readers racing one appender (with rolls) never see a partly written batch, never read
 * past the high watermark and always get the batch holding the requested offset.
 */
class ConcurrentReadTest {
    @TempDir Path tmp;

    @ParameterizedTest
    @CsvSource({"page_cache, 400", "fsync, 150"})
    void readersNeverSeePartialBatchesWhileAppendingAndRolling(String durability, int batches)
            throws Exception {
        LogConfig cfg =
                LogConfig.from(
                        Map.of(
                                "segment.bytes",
                                "20000",
                                "index.interval.bytes",
                                "500",
                                "log.durability",
                                durability));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("c-0"), cfg, Time.SYSTEM)) {
            AtomicBoolean done = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(3);
            List<Future<Long>> readers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int seed = t;
                readers.add(
                        pool.submit(
                                () -> {
                                    Random r = new Random(seed);
                                    long checked = 0;
                                    while (!done.get() || checked == 0) {
                                        long hw = log.highWatermark();
                                        if (hw == 0) {
                                            Thread.onSpinWait();
                                            continue;
                                        }
                                        long offset = (long) (r.nextDouble() * hw);
                                        FileSlice s = log.read(offset, 1 + r.nextInt(8_000));
                                        assertThat(s.firstOffset()).isLessThanOrEqualTo(offset);
                                        assertThat(s.nextOffset()).isGreaterThan(offset);
                                        assertThat(s.nextOffset())
                                                .isLessThanOrEqualTo(log.highWatermark());
                                        long next = s.firstOffset();
                                        for (RecordBatch b : s.batches()) {
                                            assertThat(b.isValid()).isTrue();
                                            assertThat(b.baseOffset()).isEqualTo(next);
                                            next = b.lastOffset() + 1;
                                            checked++;
                                        }
                                        assertThat(next).isEqualTo(s.nextOffset());
                                    }
                                    return checked;
                                }));
            }
            Future<?> writer =
                    pool.submit(
                            () -> {
                                RandomBatches gen =
                                        new RandomBatches(99, System.currentTimeMillis());
                                for (int i = 0; i < batches; i++) {
                                    log.append(gen.batch());
                                }
                                done.set(true);
                                return null;
                            });
            writer.get();
            for (Future<Long> f : readers) {
                assertThat(f.get()).isPositive();
            }
            pool.shutdown();
            assertThat(log.segments().size()).isGreaterThan(1);
        }
    }
}
