package io.tierlog.bench.tiered;

import io.tierlog.common.Config;
import io.tierlog.engine.LogOffsets;
import io.tierlog.engine.TierRead;
import io.tierlog.engine.TieredLog;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Serving cost of the unified reader, tier against tier, in one process and one run: a reader
 * consumes the same N x 1 KiB records (default 500 k) through {@link TieredLog#read} and writes
 * them to a loopback socket (drained by a thread in the same process), as the server would:
 *
 * <ul>
 *   <li><b>hot</b>: segment slices sent with {@code FileChannel.transferTo} (sendfile);
 *   <li><b>cold, empty cache</b>: a freshly opened log (empty caches) reading Parquet objects from
 *       the embedded S3 server;
 *   <li><b>cold, warm cache</b>: the same log again, decoded batches served from the cache;
 *   <li><b>time to first batch</b> for random cold offsets, empty and warm cache.
 * </ul>
 *
 * Reports process CPU-seconds per GiB (utime+stime of this JVM, which includes the embedded S3
 * server and the socket drain) and MB/s, median of {@code -Druns=3}. Usage: {@code java -cp ...
 * io.tierlog.bench.tiered.TieredReadBench [-Drecords=500000] [-Druns=3] [-Ddir=/tmp/x]
 * [-Dtierlog.<key>=<value>]}.
 *
 * <p>Not thread-safe (a main program).
 */
public final class TieredReadBench {
    private static final TopicPartition TP = new TopicPartition("bench", 0);
    private static final int VALUE_BYTES = 1024;
    private static final int PER_BATCH = 100;
    private static final int FETCH_BYTES = 1 << 20;

    private final Path dir;
    private final int records;
    private final int runs;

    /** Engine settings over the benchmark's (from {@code -Dtierlog.<key>=<value>}). */
    private final Map<String, String> settings;

    TieredReadBench(Path dir, int records, int runs, Map<String, String> settings) {
        this.dir = dir;
        this.records = records;
        this.runs = runs;
        this.settings = Map.copyOf(settings);
    }

    public static void main(String[] args) throws Exception {
        int records = Integer.getInteger("records", 500_000);
        int runs = Integer.getInteger("runs", 3);
        Path dir =
                System.getProperty("dir") != null
                        ? Path.of(System.getProperty("dir"))
                        : Files.createTempDirectory("tierlog-tiered-bench");
        Map<String, String> settings = new HashMap<>();
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("tierlog."))
                .forEach(
                        k -> settings.put(k.substring("tierlog.".length()), System.getProperty(k)));
        new TieredReadBench(dir, records, runs, settings).run();
    }

    private Config config(Map<String, String> extra) {
        Map<String, String> m = new HashMap<>();
        m.put("data.dir", dir.resolve("data").toString());
        m.put("engine.background.enabled", "false");
        m.put("segment.bytes", Integer.toString(64 << 20));
        m.put("retention.ms", "-1");
        m.put("cold.cache.bytes", Long.toString(2L << 30));
        m.putAll(settings);
        m.putAll(extra);
        return Config.of(m);
    }

    /** Runs every case and prints the figures. */
    void run() throws Exception {
        long payload;
        long coldEnd;
        try (TieredLog log = TieredLog.open(config(Map.of()))) {
            log.createTopic(TP.topic(), 1, Map.of());
            Random random = new Random(42);
            byte[] value = new byte[VALUE_BYTES];
            for (int n = 0; n < records; n += PER_BATCH) {
                SimpleRecord[] recs = new SimpleRecord[Math.min(PER_BATCH, records - n)];
                for (int i = 0; i < recs.length; i++) {
                    random.nextBytes(value);
                    recs[i] = new SimpleRecord(System.currentTimeMillis(), null, value.clone());
                }
                log.append(TP, MemoryRecords.withRecords(Compression.NONE, recs));
            }
            log.maintain();
            LogOffsets o = log.offsets(TP);
            coldEnd = o.coldHighWatermark();
            System.out.printf(
                    "appended %d records; cold tier holds [0, %d) (%d objects)%n",
                    records, coldEnd, log.catalog().objects(TP.topic(), 0).size());
            List<double[]> hot = new ArrayList<>();
            for (int r = 0; r < runs; r++) {
                hot.add(consume(log, coldEnd));
            }
            payload = (long) hot.get(0)[2];
            report("hot", hot, payload);
        }
        // Drop the hot copies of offloaded segments so reads below the hot start go cold.
        try (TieredLog log = TieredLog.open(config(Map.of("local.retention.bytes", "1")))) {
            log.maintain();
            System.out.printf("hot log now starts at %d%n", log.offsets(TP).hotLogStartOffset());
        }
        List<double[]> coldEmpty = new ArrayList<>();
        List<double[]> coldWarm = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            try (TieredLog log = TieredLog.open(config(Map.of()))) {
                coldEmpty.add(consume(log, coldEnd));
                coldWarm.add(consume(log, coldEnd));
            }
        }
        report("cold, empty cache", coldEmpty, payload);
        report("cold, warm cache", coldWarm, payload);
        firstBatchLatency(coldEnd);
    }

    /** Reads [0, end) into a loopback socket; returns {cpu seconds, wall seconds, bytes}. */
    private double[] consume(TieredLog log, long end) throws Exception {
        try (Loopback sock = new Loopback()) {
            long cpu0 = cpuNanos();
            long t0 = System.nanoTime();
            long bytes = 0;
            long offset = 0;
            while (offset < end) {
                TierRead r = log.read(TP, offset, FETCH_BYTES).get(60, TimeUnit.SECONDS);
                if (r instanceof TierRead.Hot h) {
                    long pos = 0;
                    while (pos < h.sizeInBytes()) {
                        pos += h.slice().transferTo(sock.out, pos, h.sizeInBytes() - pos);
                    }
                } else {
                    ByteBuffer b = ((TierRead.Cold) r).records().buffer().duplicate();
                    while (b.hasRemaining()) {
                        sock.out.write(b);
                    }
                }
                bytes += r.sizeInBytes();
                offset = r.nextOffset();
            }
            sock.awaitDrained(bytes);
            return new double[] {(cpuNanos() - cpu0) / 1e9, (System.nanoTime() - t0) / 1e9, bytes};
        }
    }

    private void firstBatchLatency(long end) throws Exception {
        Random random = new Random(7);
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            offsets.add((long) (random.nextDouble() * end));
        }
        // Empty cache: a cache of one byte keeps no decoded chunk (object footers stay cached).
        List<Double> empty = new ArrayList<>();
        try (TieredLog log =
                TieredLog.open(
                        config(Map.of("cold.read.ahead", "false", "cold.cache.bytes", "1")))) {
            for (long o : offsets) {
                long t0 = System.nanoTime();
                log.read(TP, o, FETCH_BYTES).get(60, TimeUnit.SECONDS);
                empty.add((System.nanoTime() - t0) / 1e6);
            }
        }
        List<Double> warm = new ArrayList<>();
        try (TieredLog log = TieredLog.open(config(Map.of("cold.read.ahead", "false")))) {
            for (long o : offsets) {
                log.read(TP, o, FETCH_BYTES).get(60, TimeUnit.SECONDS);
            }
            for (long o : offsets) {
                long t0 = System.nanoTime();
                log.read(TP, o, FETCH_BYTES).get(60, TimeUnit.SECONDS);
                warm.add((System.nanoTime() - t0) / 1e6);
            }
        }
        System.out.printf(
                "time to first batch, random cold offsets (%d): empty cache median %.1f ms p90"
                        + " %.1f ms; warm cache median %.3f ms p90 %.3f ms%n",
                offsets.size(), pct(empty, 50), pct(empty, 90), pct(warm, 50), pct(warm, 90));
    }

    private static double pct(List<Double> xs, int p) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(Math.min(s.size() - 1, s.size() * p / 100));
    }

    private static void report(String name, List<double[]> results, long payload) {
        List<Double> cpuPerGiB = new ArrayList<>();
        List<Double> mbps = new ArrayList<>();
        for (double[] r : results) {
            double gib = r[2] / (1L << 30);
            cpuPerGiB.add(r[0] / gib);
            mbps.add(r[2] / 1e6 / r[1]);
        }
        System.out.printf(
                "%-18s CPU-s/GiB median %.3f %s  MB/s median %.0f %s  (%.0f MB per run)%n",
                name,
                pct(cpuPerGiB, 50),
                round(cpuPerGiB),
                pct(mbps, 50),
                round(mbps),
                payload / 1e6);
    }

    private static String round(List<Double> xs) {
        StringBuilder b = new StringBuilder("[");
        for (double x : xs) {
            b.append(b.length() > 1 ? " " : "").append(String.format("%.2f", x));
        }
        return b.append(']').toString();
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** A loopback TCP connection whose far end a thread drains and counts. */
    private static final class Loopback implements AutoCloseable {
        final SocketChannel out;
        private final SocketChannel in;
        private final ServerSocketChannel server;
        private final Thread drain;
        private volatile long received;

        Loopback() throws IOException {
            server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            out = SocketChannel.open(server.getLocalAddress());
            in = server.accept();
            drain =
                    new Thread(
                            () -> {
                                ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
                                try {
                                    int n;
                                    while ((n = in.read(b)) >= 0) {
                                        received += n;
                                        b.clear();
                                    }
                                } catch (IOException e) {
                                    // closed
                                }
                            },
                            "bench-drain");
            drain.setDaemon(true);
            drain.start();
        }

        void awaitDrained(long bytes) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (received < bytes && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        }

        @Override
        public void close() throws IOException {
            out.close();
            in.close();
            server.close();
        }
    }
}
