package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import io.tierlog.hot.testing.RandomBatches;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exclusive {@code .lock} of a log dir: one manager at a time, readers need no lock. */
class LogDirLockTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final TopicPartition tp = new TopicPartition("orders", 0);

    LogManager open(Path logDir) throws IOException {
        return LogManager.open(logDir, t -> LogConfig.defaults(), time, null);
    }

    @Test
    void secondManagerOnTheSameDirFailsClearlyUntilTheFirstCloses() throws Exception {
        Path logDir = tmp.resolve("log");
        LogManager first = open(logDir);
        first.getOrCreate(tp).append(new RandomBatches(1).batch());
        try {
            assertThatThrownBy(() -> open(logDir))
                    .isInstanceOf(IOException.class)
                    .hasMessage(
                            "log dir "
                                    + logDir
                                    + " is in use by another process (lock held on "
                                    + logDir.resolve(".lock")
                                    + ")");
            // the failed attempt neither took the lock nor touched the holder's state
            assertThat(logDir.resolve(".kafka_cleanshutdown")).doesNotExist();
            assertThat(first.partition(tp).orElseThrow().logEndOffset()).isPositive();
        } finally {
            first.close();
        }
        try (LogManager second = open(logDir)) {
            assertThat(second.partition(tp)).isPresent();
        }
    }

    @Test
    void readOnlyLogDirReadsALockedDirAndIgnoresTheLockFile() throws Exception {
        Path logDir = tmp.resolve("log");
        try (LogManager m = open(logDir);
                ReadOnlyLogDir ro = ReadOnlyLogDir.open(logDir)) {
            RandomBatches gen = new RandomBatches(2);
            for (int i = 0; i < 10; i++) {
                m.getOrCreate(tp).append(gen.batch());
            }
            assertThat(logDir.resolve(LogManager.LOCK_FILE)).exists();
            assertThat(ro.partitions()).containsExactly(tp);
            SegmentInfo s = ro.segments(tp).get(0);
            long end = m.partition(tp).orElseThrow().logEndOffset();
            assertThat(s.nextOffset()).isEqualTo(end);
            assertThat(ro.readSegment(s).nextOffset()).isEqualTo(end);
            long mid = end / 2;
            Iterator<RecordBatch> it = ro.batchesFrom(s, mid);
            RecordBatch first = it.next();
            assertThat(first.baseOffset()).isLessThanOrEqualTo(mid);
            assertThat(first.lastOffset()).isGreaterThanOrEqualTo(mid);
            long last = first.lastOffset();
            while (it.hasNext()) {
                last = it.next().lastOffset();
            }
            assertThat(last).isEqualTo(end - 1);
        }
    }

    @Test
    void lockFileStaysAfterCloseAndDoesNotBlockTheNextOpen() throws Exception {
        Path logDir = tmp.resolve("log");
        open(logDir).close();
        assertThat(logDir.resolve(LogManager.LOCK_FILE)).exists();
        try (Stream<Path> files = Files.list(logDir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .contains(".lock", ".kafka_cleanshutdown");
        }
        open(logDir).close();
    }
}
