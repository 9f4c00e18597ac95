package io.tierlog.bench.tiered;

import io.tierlog.common.Config;
import io.tierlog.engine.TieredLog;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import io.tierlog.server.TierlogServer;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Kafka consumer ({@code kafka-clients}, {@code assign()}) reads the same N x 1 KiB records
 * (default 500 k) from a tierlog server: from the hot tier, from the cold tier with an empty cache
 * (a freshly started server), and from the cold tier with a warm cache (the same server again);
 * then the time to the first batch for random cold offsets. The server runs in this JVM; its CPU is
 * the process CPU minus the consumer's thread (the classic consumer does its I/O on the polling
 * thread). Each case first runs {@code -Dwarmups=5} times unmeasured (JIT warm-up, as in a
 * long-running server; printed as "warm-up"), then prints medians of {@code -Druns=3}; {@code
 * -Dthreads=true} also prints CPU per thread group (consumer, cold readers, embedded S3 server,
 * JIT, GC). The S3 server (s3proxy, in this JVM) runs for the whole benchmark, as S3 would, while
 * the tierlog server restarts to empty its caches ({@code -Ds3=per-server}: each tierlog server
 * starts its own embedded one). Usage: {@code java -cp ...
 * io.tierlog.bench.tiered.TieredServerBench [-Drecords=500000] [-Druns=3] [-Dwarmups=5]
 * [-Dthreads=true] [-Ds3=per-server]}.
 *
 * <p>Not thread-safe (a main program).
 */
public final class TieredServerBench implements AutoCloseable {
    private static final String TOPIC = "bench";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    private final Path dir;
    private final int records;
    private final int runs;
    private final int warmups;

    /** Server settings over the benchmark's (from {@code -Dtierlog.<key>=<value>}). */
    private final Map<String, String> settings;

    /**
     * The S3 endpoint, running for the whole benchmark as S3 would: restarting the tierlog server
     * (to empty its caches) then does not restart the S3 server too. In this JVM, so its CPU counts
     * as the server's. {@code -Ds3=per-server} uses each server's own embedded S3 server instead.
     */
    private final EmbeddedS3Server s3;

    private TierlogServer server;

    TieredServerBench(Path dir, int records, int runs, int warmups, Map<String, String> settings)
            throws IOException {
        this.dir = dir;
        this.records = records;
        this.runs = runs;
        this.warmups = warmups;
        this.settings = Map.copyOf(settings);
        this.s3 =
                "per-server".equals(System.getProperty("s3"))
                        ? null
                        : EmbeddedS3Server.start(dir.resolve("s3"));
    }

    public static void main(String[] args) throws Exception {
        // Any -Dtierlog.<key>=<value> sets a server option (e.g.
        // -Dtierlog.cold.read.chunk.bytes=16MiB).
        Map<String, String> settings = new HashMap<>();
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("tierlog."))
                .forEach(
                        k -> settings.put(k.substring("tierlog.".length()), System.getProperty(k)));
        try (TieredServerBench bench =
                new TieredServerBench(
                        Files.createTempDirectory("tierlog-server-bench"),
                        Integer.getInteger("records", 500_000),
                        Integer.getInteger("runs", 3),
                        Integer.getInteger("warmups", 5),
                        settings)) {
            bench.run();
        }
        System.exit(0);
    }

    /** Stops the server if one is still running, and the S3 server. */
    @Override
    public void close() throws Exception {
        stop();
        if (s3 != null) {
            s3.close();
        }
    }

    private void stop() throws Exception {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    private void start(Map<String, String> extra) throws Exception {
        Map<String, String> s = new HashMap<>();
        s.put("listeners", "PLAINTEXT://127.0.0.1:0");
        s.put("schema.registry.listen", "");
        s.put("data.dir", dir.resolve("data").toString());
        s.put("num.partitions", "1");
        s.put("segment.bytes", Integer.toString(64 << 20));
        s.put("retention.ms", "-1");
        s.put("offload.interval.ms", "500");
        s.put("cold.cache.bytes", Long.toString(2L << 30));
        s.putAll(settings);
        if (s3 != null) {
            s.putAll(s3.clientConfig().asMap());
        }
        s.putAll(extra);
        server = TierlogServer.start(Config.of(s));
    }

    private String bootstrap() {
        return "127.0.0.1:" + server.port();
    }

    private TieredLog tiered() {
        return server.engine();
    }

    /** Runs every case and prints the figures. */
    void run() throws Exception {
        start(Map.of());
        produce();
        while (tiered().inspect(Optional.of(TOPIC)).get(0).offloadLagOffsets() > 0) {
            Thread.sleep(200); // waiting for the server's offload loop
        }
        long coldEnd = tiered().offsets(TP).coldHighWatermark();
        System.out.printf("produced %d x 1 KiB; cold tier holds [0, %d)%n", records, coldEnd);
        // One unmeasured round of each case first, as JMH would: the JIT compiles the read
        // paths of a long-running server (hot: the produce phase already ran the server).
        for (int w = 0; w < warmups; w++) {
            warmUp("hot", consume(0, coldEnd));
        }
        List<double[]> hot = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            hot.add(consume(0, coldEnd));
        }
        stop();
        start(Map.of("local.retention.bytes", "1"));
        while (tiered().offsets(TP).hotLogStartOffset() < coldEnd) {
            Thread.sleep(200); // waiting for the server's local retention
        }
        // Each case runs back to back (warm-ups, then the measured runs), as a server's steady
        // workload would: alternating cases in one JVM made the JIT recompile at every switch.
        List<double[]> coldEmpty = new ArrayList<>();
        for (int r = 0; r < warmups + runs; r++) {
            if (r > 0) {
                stop(); // a fresh server: empty caches
                start(Map.of("local.retention.bytes", "1"));
            }
            double[] result = consume(0, coldEnd);
            if (r < warmups) {
                warmUp("cold, empty cache", result);
            } else {
                coldEmpty.add(result);
            }
        }
        // The last server's cache holds everything now.
        List<double[]> coldWarm = new ArrayList<>();
        for (int r = 0; r < warmups + runs; r++) {
            double[] result = consume(0, coldEnd);
            if (r < warmups) {
                warmUp("cold, warm cache", result);
            } else {
                coldWarm.add(result);
            }
        }
        report("hot", hot);
        report("cold, empty cache", coldEmpty);
        report("cold, warm cache", coldWarm);
        stop();
        firstBatch(coldEnd);
    }

    private void produce() throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 << 10);
        Random random = new Random(1);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                byte[] v = new byte[1024];
                random.nextBytes(v);
                producer.send(new ProducerRecord<>(TOPIC, 0, null, v));
            }
            producer.flush();
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Reads [from, to); returns {server CPU s, wall s, payload bytes}. */
    private double[] consume(long from, long to) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap())) {
            c.assign(List.of(TP));
            c.seek(TP, from);
            Map<String, Long> tasks0 = threadGroupCpuMs();
            long cpu0 = processCpu();
            long mine0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            long bytes = 0;
            while (c.position(TP) < to) {
                ConsumerRecords<byte[], byte[]> rs = c.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> r : rs) {
                    bytes += r.serializedValueSize();
                }
            }
            double wall = (System.nanoTime() - t0) / 1e9;
            double server =
                    ((processCpu() - cpu0) - (threads.getCurrentThreadCpuTime() - mine0)) / 1e9;
            if (Boolean.getBoolean("threads")) {
                printThreadGroups(tasks0, threadGroupCpuMs(), bytes);
            }
            return new double[] {server, wall, bytes};
        }
    }

    private void firstBatch(long coldEnd) throws Exception {
        Random random = new Random(7);
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            offsets.add((long) (random.nextDouble() * coldEnd));
        }
        List<Double> empty = new ArrayList<>();
        start(
                Map.of(
                        "local.retention.bytes",
                        "1",
                        "cold.cache.bytes",
                        "1",
                        "cold.read.ahead",
                        "false"));
        for (long o : offsets) {
            empty.add(timeToFirstBatch(o));
        }
        stop();
        List<Double> warm = new ArrayList<>();
        start(Map.of("local.retention.bytes", "1", "cold.read.ahead", "false"));
        for (long o : offsets) {
            timeToFirstBatch(o);
        }
        for (long o : offsets) {
            warm.add(timeToFirstBatch(o));
        }
        stop();
        System.out.printf(
                "time to first batch, random cold offsets (%d, new consumer each): empty cache"
                        + " median %.1f ms, warm cache median %.1f ms%n",
                offsets.size(), pct(empty, 50), pct(warm, 50));
    }

    private double timeToFirstBatch(long offset) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap())) {
            c.assign(List.of(TP));
            c.seek(TP, offset);
            c.position(TP); // connection and metadata before the clock starts
            long t0 = System.nanoTime();
            while (c.poll(Duration.ofMillis(100)).isEmpty()) {
                // until the first batch arrives
            }
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    /**
     * CPU milliseconds per group of threads of this process (Linux: {@code /proc/self/task}),
     * grouped by name without digits; includes threads the JVM does not list (GC, JIT).
     */
    private static Map<String, Long> threadGroupCpuMs() {
        Map<String, Long> out = new HashMap<>();
        File[] tasks = new File("/proc/self/task").listFiles();
        if (tasks == null) {
            return out;
        }
        long msPerTick = 10; // USER_HZ is 100 on Linux
        for (File t : tasks) {
            try {
                String name =
                        Files.readString(t.toPath().resolve("comm"))
                                .trim()
                                .replaceAll("[0-9]+", "N");
                String stat = Files.readString(t.toPath().resolve("stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                out.merge(name, ticks * msPerTick, Long::sum);
            } catch (IOException | RuntimeException e) {
                // the thread ended meanwhile
            }
        }
        return out;
    }

    /** Prints CPU-s/GiB per thread group between two snapshots ({@code -Dthreads=true}). */
    private static void printThreadGroups(
            Map<String, Long> before, Map<String, Long> after, long bytes) {
        double gib = bytes / (double) (1L << 30);
        StringBuilder sb = new StringBuilder("  CPU-s/GiB by thread:");
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() >= 10)
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .forEach(
                        e ->
                                sb.append(
                                        String.format(
                                                " %s=%.2f", e.getKey(), e.getValue() / 1e3 / gib)));
        System.out.println(sb);
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static double pct(List<Double> xs, int p) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(Math.min(s.size() - 1, s.size() * p / 100));
    }

    private static void warmUp(String name, double[] r) {
        System.out.printf(
                "warm-up (not counted) %-18s server CPU-s/GiB %.2f  consumer MB/s %.0f%n",
                name, r[0] / (r[2] / (1L << 30)), r[2] / 1e6 / r[1]);
    }

    private static void report(String name, List<double[]> results) {
        List<Double> cpu = new ArrayList<>();
        List<Double> mbps = new ArrayList<>();
        for (double[] r : results) {
            cpu.add(r[0] / (r[2] / (1L << 30)));
            mbps.add(r[2] / 1e6 / r[1]);
        }
        System.out.printf(
                "%-18s server CPU-s/GiB median %.2f %s  consumer MB/s median %.0f %s%n",
                name, pct(cpu, 50), cpu, pct(mbps, 50), mbps);
    }
}
