package io.tierlog.hot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.Await;
import io.tierlog.hot.testing.RandomBatches;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Appends on a full file system (a real tmpfs, so ENOSPC comes from the kernel): a failed append
 * leaves nothing in the log or its indexes, the log goes offline, and it comes back without a
 * reopen once space returns. Index entries need a new page every 512 (offset) or 341 (time)
 * entries, the log every few batches; freeing one page at a time over many rounds makes some
 * failures hit an index write after a successful log write (the case that used to SIGBUS).
 */
class DiskFullTest {
    private final Path tmp = TempDirs.create();
    private final MockTime time = new MockTime(1_700_000_000_000L);

    @AfterEach
    void cleanUp() {
        TempDirs.delete(tmp);
    }

    @Test
    void aFailedAppendLeavesNothingAndTheLogRecoversOnceSpaceReturns() throws Exception {
        try (Tmpfs fs = Tmpfs.mount(tmp.resolve("mnt"), "2m")) {
            Path dir = fs.mountPoint.resolve("disk-0");
            LogConfig config =
                    LogConfig.from(
                            Map.of(
                                    "index.interval.bytes", "0",
                                    "segment.bytes", "131072",
                                    "segment.index.bytes", "65536"));
            PartitionLog log = PartitionLog.open(dir, config, time);
            Random random = new Random(16);
            List<String> acked = new ArrayList<>();
            int failures = 0;
            int indexFailures = 0;
            int n = 0;
            fs.fill();
            for (int round = 0; round < 120; round++) {
                fs.free(4096);
                time.advance(OfflineState.RETRY_MAX_MS);
                Await.until(
                        "recovery after freeing space",
                        () -> {
                            if (log.maybeRecover()) {
                                return true;
                            }
                            // a recovery that needs more than the freed page: give it another one
                            fs.free(4096);
                            time.advance(OfflineState.RETRY_MAX_MS);
                            return false;
                        },
                        Duration.ofSeconds(10));
                while (true) {
                    String value = "r" + (n++) + "-" + "x".repeat(random.nextInt(300));
                    ByteBuffer batch = batch(value);
                    try {
                        log.append(batch);
                        acked.add(value);
                    } catch (LogOfflineException e) {
                        failures++;
                        if (causedByIndexWrite(e)) {
                            indexFailures++;
                        }
                        break;
                    }
                }
                assertTrue(log.isOffline());
                assertThrows(LogOfflineException.class, () -> log.append(batch("refused")));
                assertThrows(LogOfflineException.class, () -> log.read(0, 1 << 20));
                assertEquals(acked.size(), log.logEndOffset(), "log end after round " + round);
            }
            fs.freeAll();
            time.advance(OfflineState.RETRY_MAX_MS);
            assertTrue(log.maybeRecover());
            log.append(batch("after-space-returned"));
            acked.add("after-space-returned");
            assertEquals(acked, values(log), "exactly the acknowledged records, in order");
            log.close();
            assertTrue(failures >= 120);
            assertTrue(
                    indexFailures > 0, "no failure hit an index write (" + failures + " failures)");

            try (PartitionLog reopened = PartitionLog.open(dir, config, time)) {
                assertEquals(acked, values(reopened), "after a reopen");
            }
            List<String> problems = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.log")) {
                for (Path f : ds) {
                    problems.addAll(IndexCheck.check(f));
                }
            }
            assertEquals(List.of(), problems);
        }
    }

    @Test
    void indexCheckFindsAZeroedEntry() throws Exception {
        Path dir = tmp.resolve("zeroed-0");
        LogConfig config = LogConfig.from(Map.of("index.interval.bytes", "0"));
        try (PartitionLog log = PartitionLog.open(dir, config, time)) {
            for (int i = 0; i < 5; i++) {
                log.append(batch("v" + i));
            }
        }
        Path index = dir.resolve(LogSegment.fileName(0) + LogSegment.INDEX_SUFFIX);
        Path logFile = dir.resolve(LogSegment.fileName(0) + LogSegment.LOG_SUFFIX);
        assertEquals(List.of(), IndexCheck.check(logFile));
        byte[] b = Files.readAllBytes(index);
        assertTrue(b.length >= 16);
        java.util.Arrays.fill(b, b.length - 8, b.length, (byte) 0);
        Files.write(index, b);
        assertFalse(IndexCheck.check(logFile).isEmpty());
    }

    private static boolean causedByIndexWrite(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            for (StackTraceElement f : t.getStackTrace()) {
                if (f.getClassName().equals(AbstractIndex.class.getName())) {
                    return true;
                }
            }
        }
        return false;
    }

    private ByteBuffer batch(String value) {
        return RandomBatches.batch(
                CompressionType.NONE,
                List.of(
                        new SimpleRecord(
                                time.milliseconds() + value.length(),
                                null,
                                value.getBytes(StandardCharsets.UTF_8))));
    }

    private static List<String> values(PartitionLog log) throws IOException {
        List<String> out = new ArrayList<>();
        for (RecordBatch b : LogTestSupport.readAll(log, 1 << 20)) {
            for (Record r : b) {
                ByteBuffer v = r.value();
                byte[] bytes = new byte[v.remaining()];
                v.get(bytes);
                assertEquals(out.size(), r.offset(), "offset of record " + out.size());
                out.add(new String(bytes, StandardCharsets.UTF_8));
            }
        }
        return out;
    }
}
