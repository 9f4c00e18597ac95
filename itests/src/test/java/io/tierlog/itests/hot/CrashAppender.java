package io.tierlog.itests.hot;

import io.tierlog.common.Time;
import io.tierlog.hot.AppendResult;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.testing.RandomBatches;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;

/**
 * The child JVM of {@link CrashRecoveryIT}: opens the log dir with {@link LogManager} (recovering
 * after the previous incarnation's {@code kill -9}), prints {@code OPEN <logEndOffset>}, then
 * appends random batches forever from several threads in {@code log.durability=fsync} mode and
 * prints {@code ACK <firstOffset> <lastOffset> <digest>} after each append returns, i.e. once it is
 * acknowledged. The digest is {@link BatchDigest} of the appended batches.
 *
 * <p>Usage: {@code CrashAppender LOG_DIR SEED THREADS}.
 *
 * <p>Thread-safety: a program; its appender threads share the log (thread-safe) and stdout (a
 * synchronized, auto-flushing PrintStream: one write per line).
 */
public final class CrashAppender {
    static final TopicPartition PARTITION = new TopicPartition("crash", 0);

    /** Small segments and a dense index so kills land in rolls and index appends too. */
    static LogConfig config() {
        return LogConfig.from(
                Map.of(
                        "log.durability", "fsync",
                        "segment.bytes", "262144",
                        "index.interval.bytes", "1024"));
    }

    private CrashAppender() {}

    public static void main(String[] args) throws Exception {
        Path logDir = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        int threads = Integer.parseInt(args[2]);
        PrintStream out =
                new PrintStream(
                        new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        LogManager manager = LogManager.open(logDir, t -> config(), Time.SYSTEM, scheduler);
        PartitionLog log = manager.getOrCreate(PARTITION);
        out.println("OPEN " + log.logEndOffset());
        List<Thread> appenders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            RandomBatches random = new RandomBatches(seed * 1000 + t);
            Thread thread =
                    new Thread(
                            () -> {
                                try {
                                    while (true) {
                                        List<ByteBuffer> batches = new ArrayList<>();
                                        int n = 1 + random.random().nextInt(3);
                                        for (int i = 0; i < n; i++) {
                                            batches.add(random.batch());
                                        }
                                        ByteBuffer request = RandomBatches.concat(batches);
                                        String digest = BatchDigest.of(request.duplicate());
                                        AppendResult r = log.append(request);
                                        out.println(
                                                "ACK "
                                                        + r.firstOffset()
                                                        + " "
                                                        + r.lastOffset()
                                                        + " "
                                                        + digest);
                                    }
                                } catch (Throwable e) {
                                    e.printStackTrace();
                                    System.exit(3);
                                }
                            },
                            "appender-" + t);
            appenders.add(thread);
            thread.start();
        }
        for (Thread t : appenders) {
            t.join();
        }
    }
}
