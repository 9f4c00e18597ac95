package io.tierlog.itests.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Time;
import io.tierlog.hot.FileSlice;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2 proof, crash safety: a child JVM ({@link CrashAppender}) appends from two threads in
 * fsync-before-ack mode and reports every acknowledged append; the test kills it with SIGKILL
 * ({@code kill -9}) after a random number of acknowledgements (sometimes right after it opened the
 * log, i.e. during or just after recovery), at least 30 times. After every kill a copy of the log
 * dir is opened by {@link LogManager} (recovery after an unclean stop) and must hold every
 * acknowledged append with identical content, and validate: every batch's CRC is right, offsets are
 * consecutive from the log start to the end offset, no partial batch is served. The next child then
 * recovers the original dir and goes on appending.
 *
 * <p>System properties: {@code tierlog.crash.iterations} (default 30), {@code
 * tierlog.crash.maxAcks} (most acknowledgements before a kill, default 120).
 */
class CrashRecoveryIT {
    private static final int ITERATIONS = Integer.getInteger("tierlog.crash.iterations", 30);
    private static final int MAX_ACKS = Integer.getInteger("tierlog.crash.maxAcks", 120);
    private static final int THREADS = 2;

    @TempDir Path tmp;

    /** An acknowledged append. */
    private record Ack(long first, long last, String digest) {}

    /** A batch read back from the log. */
    private record Stored(long base, long last, ByteBuffer bytes) {}

    @Test
    void everyAcknowledgedFsyncAppendSurvivesKillMinus9() throws Exception {
        Path logDir = tmp.resolve("log");
        Random random = new Random(20261129L);
        TreeMap<Long, Ack> acked = new TreeMap<>();
        for (int i = 0; i < ITERATIONS; i++) {
            int threshold = random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(MAX_ACKS);
            List<Ack> acks = runAndKill(logDir, i, threshold);
            for (Ack a : acks) {
                Ack previous = acked.put(a.first(), a);
                assertThat(previous).as("offset %d acknowledged twice", a.first()).isNull();
            }
            Path copy = tmp.resolve("verify-" + i);
            copyTree(logDir, copy);
            verify(copy, acked);
            deleteTree(copy);
        }
        long end = verify(logDir, acked);
        System.out.printf(
                "CrashRecoveryIT: %d kill -9s, %d acknowledged appends verified, log end offset %d%n",
                ITERATIONS, acked.size(), end);
        assertThat(acked).as("acknowledged appends over all runs").hasSizeGreaterThan(ITERATIONS);
    }

    /** Starts a child, waits for {@code threshold} acks in this incarnation, SIGKILLs it. */
    private List<Ack> runAndKill(Path logDir, int incarnation, int threshold) throws Exception {
        Path err = tmp.resolve("child-" + incarnation + ".err");
        Process child =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-Xmx256m",
                                "-XX:TieredStopAtLevel=1",
                                "-cp",
                                System.getProperty("java.class.path"),
                                CrashAppender.class.getName(),
                                logDir.toString(),
                                Integer.toString(incarnation),
                                Integer.toString(THREADS))
                        .redirectError(err.toFile())
                        .start();
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        Semaphore lines = new Semaphore(0);
        Thread reader =
                new Thread(() -> pump(child.getInputStream(), stdout, lines), "child-stdout");
        reader.start();
        // the OPEN line, then `threshold` ACK lines
        boolean reached = lines.tryAcquire(1 + threshold, 2, TimeUnit.MINUTES);
        child.destroyForcibly(); // SIGKILL
        assertThat(child.waitFor(1, TimeUnit.MINUTES)).isTrue();
        reader.join(TimeUnit.MINUTES.toMillis(1));
        if (!reached) {
            throw new AssertionError(
                    "child "
                            + incarnation
                            + " did not acknowledge "
                            + threshold
                            + " appends; stdout:\n"
                            + stdout
                            + "\nstderr:\n"
                            + Files.readString(err));
        }
        String text;
        synchronized (stdout) {
            text = stdout.toString(StandardCharsets.UTF_8);
        }
        // only complete lines: the kill may cut the last one
        List<Ack> acks = new ArrayList<>();
        String complete = text.substring(0, text.lastIndexOf('\n') + 1);
        for (String line : complete.split("\n")) {
            if (line.startsWith("ACK ")) {
                String[] f = line.split(" ");
                acks.add(new Ack(Long.parseLong(f[1]), Long.parseLong(f[2]), f[3]));
            } else {
                assertThat(line).startsWith("OPEN ");
            }
        }
        assertThat(acks.size()).isGreaterThanOrEqualTo(threshold);
        return acks;
    }

    private static void pump(InputStream in, ByteArrayOutputStream sink, Semaphore lines) {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (sink) {
                    sink.write(buf, 0, n);
                }
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        lines.release();
                    }
                }
            }
        } catch (IOException e) {
            // the child was killed: its pipe is closed
        }
    }

    /** Opens {@code logDir} (recovering it) and checks every acknowledged append and the log. */
    private static long verify(Path logDir, TreeMap<Long, Ack> acked) throws IOException {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogManager manager =
                LogManager.open(logDir, t -> CrashAppender.config(), Time.SYSTEM, scheduler)) {
            PartitionLog log = manager.partition(CrashAppender.PARTITION).orElseThrow();
            long maxAcked = acked.isEmpty() ? -1 : acked.lastEntry().getValue().last();
            assertThat(log.logEndOffset()).isGreaterThan(maxAcked);
            assertThat(log.highWatermark()).isEqualTo(log.logEndOffset());
            TreeMap<Long, Stored> stored = readAll(log);
            for (Ack a : acked.values()) {
                List<ByteBuffer> run = new ArrayList<>();
                long next = a.first();
                while (next <= a.last()) {
                    Stored s = stored.get(next);
                    assertThat(s)
                            .as("acknowledged batch at offset %d is missing", next)
                            .isNotNull();
                    run.add(s.bytes());
                    next = s.last() + 1;
                }
                assertThat(next - 1).as("end of append %s", a).isEqualTo(a.last());
                assertThat(BatchDigest.of(run))
                        .as("content of acknowledged append %s", a)
                        .isEqualTo(a.digest());
            }
            return log.logEndOffset();
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** Every batch from log start to high watermark, checked for CRC and offset continuity. */
    private static TreeMap<Long, Stored> readAll(PartitionLog log) throws IOException {
        TreeMap<Long, Stored> out = new TreeMap<>();
        long next = log.logStartOffset();
        while (next < log.highWatermark()) {
            FileSlice slice = log.read(next, 1024 * 1024);
            assertThat(slice.isEmpty()).as("read at %d below the high watermark", next).isFalse();
            ByteBuffer buf = slice.readFully();
            int p = buf.position();
            while (p < buf.limit()) {
                assertThat(buf.limit() - p).as("no partial batch at %d", next).isGreaterThan(12);
                int size = 12 + buf.getInt(p + 8);
                assertThat(p + size).as("whole batch at %d", next).isLessThanOrEqualTo(buf.limit());
                ByteBuffer bytes = buf.duplicate();
                bytes.limit(p + size).position(p);
                bytes = bytes.slice();
                RecordBatch batch =
                        MemoryRecords.readableRecords(bytes.duplicate())
                                .batches()
                                .iterator()
                                .next();
                batch.ensureValid(); // size, magic and CRC-32C
                if (batch.lastOffset() >= next) { // the slice starts at the batch holding `next`
                    assertThat(batch.baseOffset()).as("offsets are consecutive").isEqualTo(next);
                    out.put(
                            batch.baseOffset(),
                            new Stored(batch.baseOffset(), batch.lastOffset(), bytes));
                    next = batch.lastOffset() + 1;
                }
                p += size;
            }
            assertThat(slice.nextOffset()).isEqualTo(next);
        }
        assertThat(next).isEqualTo(log.logEndOffset());
        return out;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : paths.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
