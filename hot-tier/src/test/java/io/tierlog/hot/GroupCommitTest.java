package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Time;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FSYNC durability: many appenders, each acknowledged only below the fsynced high watermark. */
class GroupCommitTest {
    @TempDir Path tmp;

    @Test
    void concurrentAppendersAreAcknowledgedOnlyAfterASharedFsync() throws Exception {
        int threads = 8;
        int perThread = 40;
        LogConfig cfg = LogConfig.from(Map.of("log.durability", "fsync", "segment.bytes", "20000"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("g-0"), cfg, Time.SYSTEM)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<List<AppendResult>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                futures.add(
                        pool.submit(
                                () -> {
                                    RandomBatches gen =
                                            new RandomBatches(seed, System.currentTimeMillis());
                                    List<AppendResult> results = new ArrayList<>();
                                    for (int i = 0; i < perThread; i++) {
                                        ByteBuffer b =
                                                gen.fixedSizeBatch(CompressionType.NONE, 4, 200);
                                        AppendResult r = log.append(b);
                                        // acknowledged => durable => readable
                                        assertThat(log.highWatermark())
                                                .isGreaterThan(r.lastOffset());
                                        results.add(r);
                                    }
                                    return results;
                                }));
            }
            long records = 0;
            for (Future<List<AppendResult>> f : futures) {
                for (AppendResult r : f.get()) {
                    records += r.recordCount();
                }
            }
            pool.shutdown();
            assertThat(log.logEndOffset()).isEqualTo(records);
            assertThat(log.highWatermark()).isEqualTo(records);
            assertThat(log.groupCommitFsyncs()).isLessThanOrEqualTo(threads * perThread);
            assertThat(LogTestSupport.readAll(log, 1 << 20)).hasSize(threads * perThread);
            assertThat(log.recoveryPoint()).isEqualTo(records);
        }
    }

    @Test
    void pageCacheModeExposesDataImmediatelyAndFlushAdvancesRecoveryPoint() throws Exception {
        try (PartitionLog log =
                PartitionLog.open(tmp.resolve("p-0"), LogConfig.defaults(), Time.SYSTEM)) {
            AppendResult r = log.append(new RandomBatches(1, System.currentTimeMillis()).batch());
            assertThat(log.highWatermark()).isEqualTo(r.lastOffset() + 1);
            assertThat(log.recoveryPoint()).isZero();
            log.flush();
            assertThat(log.recoveryPoint()).isEqualTo(r.lastOffset() + 1);
        }
    }

    @Test
    void flushMessagesFsyncsAfterThatManyRecords() throws Exception {
        LogConfig cfg = LogConfig.from(Map.of("flush.messages", "10"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("f-0"), cfg, Time.SYSTEM)) {
            RandomBatches gen = new RandomBatches(2, System.currentTimeMillis());
            log.append(gen.fixedSizeBatch(CompressionType.NONE, 5, 10));
            assertThat(log.recoveryPoint()).isZero();
            log.append(gen.fixedSizeBatch(CompressionType.NONE, 5, 10));
            assertThat(log.recoveryPoint()).isEqualTo(10);
        }
    }
}
