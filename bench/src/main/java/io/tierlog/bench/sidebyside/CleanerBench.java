package io.tierlog.bench.sidebyside;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Log cleaner throughput, Apache Kafka 4.4.0 against tierlog's hot-tier cleaner, on the same data
 * in the same run (method and numbers in bench/README.md, "Log cleaner").
 *
 * <p>Per server and run: start it with its cleaner off ({@code log.cleaner.enable=false}; tierlog
 * also hot-only), create a compacted topic, write the same seeded keyed records (updates of a key
 * space a quarter the record count, one in ten a tombstone, values of 100 to 900 bytes), wait
 * {@code segment.ms} and write a sentinel record so that every other record is in a closed segment,
 * stop it, and sum the bytes of the closed segments (the dirty bytes). Start it again with one
 * cleaner thread, poll its {@code cleaner-offset-checkpoint} until it reaches the sentinel, and
 * read that thread's CPU time from {@code /proc/<pid>/task/<tid>/stat} (Kafka's {@code
 * kafka-log-cleaner-thread-0}, tierlog's {@code log-cleaner-0-...}). The figure is dirty MiB per
 * cleaner-thread CPU-second ("MiB/s per core"). For Kafka the harness also sums Kafka's own log
 * lines "N MB of log processed in S seconds", whose wall-clock rate is printed for comparison.
 *
 * <p>Options: {@code --runs N} (default 3; medians printed), {@code --records N} (default 200000),
 * {@code --tierlog PATH} (launcher), {@code --work DIR}, {@code --set k=v} (extra tierlog
 * settings).
 *
 * <p>Thread-safety: a single-threaded program.
 */
public final class CleanerBench {
    private static final double MIB = 1024.0 * 1024;
    private static final String TOPIC = "cleaner-bench";
    private static final long SEGMENT_MS = 3000;
    private static final Pattern KAFKA_STATS =
            Pattern.compile("([\\d,.]+) MB of log processed in ([\\d,.]+) seconds");

    /** One server's figures in one run. */
    record Figures(double dirtyMib, double cleanedMib, double cpuSeconds, double wallSeconds) {
        double mibPerCpuSecond() {
            return dirtyMib / cpuSeconds;
        }
    }

    private CleanerBench() {}

    public static void main(String[] args) throws Exception {
        int runs = 3;
        int records = 200_000;
        Path launcher = Path.of("bin/tierlog");
        Path work = Path.of("bench/target/cleaner-bench");
        List<String> sets = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--records" -> records = Integer.parseInt(args[++i]);
                case "--tierlog" -> launcher = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--set" -> sets.add(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Map<String, List<Figures>> results = new LinkedHashMap<>();
        for (int run = 1; run <= runs; run++) {
            Path runDir = work.resolve("run-" + run);
            SideBySide.deleteTree(runDir);
            long seed = 42L + run;
            Figures k = kafka(runDir.resolve("kafka"), records, seed);
            Figures t = tierlog(launcher, runDir.resolve("tierlog"), sets, records, seed);
            System.out.printf("run %d kafka   %s%n", run, format(k));
            System.out.printf("run %d tierlog %s%n", run, format(t));
            results.computeIfAbsent("kafka", x -> new ArrayList<>()).add(k);
            results.computeIfAbsent("tierlog", x -> new ArrayList<>()).add(t);
        }
        double kafka = median(results.get("kafka"));
        double tierlog = median(results.get("tierlog"));
        System.out.printf(
                "median over %d runs: kafka %.1f MiB/s per core, tierlog %.1f MiB/s per core,"
                        + " tierlog / kafka %.2f%n",
                runs, kafka, tierlog, tierlog / kafka);
    }

    private static Figures kafka(Path dir, int records, long seed) throws Exception {
        long sentinel;
        try (ServerUnderTest k = KafkaServer.start(dir, Map.of("log.cleaner.enable", "false"))) {
            sentinel = fill(k.bootstrapServers(), records, seed);
        }
        Path partition = dir.resolve("kafka-logs").resolve(TOPIC + "-0");
        double dirty = closedBytes(partition, sentinel) / MIB;
        try (ServerUnderTest k =
                KafkaServer.start(
                        dir,
                        Map.of(
                                "log.cleaner.enable", "true",
                                "log.cleaner.threads", "1",
                                "log.cleaner.backoff.ms", "100"))) {
            long t0 = System.nanoTime();
            awaitCleaned(dir.resolve("kafka-logs"), sentinel);
            double wall = (System.nanoTime() - t0) / 1e9;
            double cpu = ProcCpu.threadSeconds(k.pid(), "kafka-log-clean");
            double cleaned = closedBytes(partition, sentinel) / MIB;
            Figures f = new Figures(dirty, cleaned, cpu, wall);
            double[] own = kafkaOwnStats(dir.resolve("kafka.out"));
            System.out.printf(
                    "  kafka's own log lines: %.1f MB processed in %.1f s (%.1f MB/s wall)%n",
                    own[0], own[1], own[0] / own[1]);
            return f;
        }
    }

    private static Figures tierlog(
            Path launcher, Path dir, List<String> sets, int records, long seed) throws Exception {
        List<String> off = new ArrayList<>(sets);
        off.add("tiered.enabled=false");
        off.add("log.cleaner.enable=false");
        long sentinel;
        try (ServerUnderTest t = TierlogServer.start(launcher, dir, off)) {
            sentinel = fill(t.bootstrapServers(), records, seed);
        }
        Path logDir = dir.resolve("data").resolve("log");
        Path partition = logDir.resolve(TOPIC + "-0");
        double dirty = closedBytes(partition, sentinel) / MIB;
        List<String> on = new ArrayList<>(sets);
        on.add("tiered.enabled=false");
        on.add("log.cleaner.enable=true");
        on.add("log.cleaner.threads=1");
        on.add("log.cleaner.backoff.ms=100");
        try (ServerUnderTest t = TierlogServer.start(launcher, dir, on)) {
            long t0 = System.nanoTime();
            awaitCleaned(logDir, sentinel);
            double wall = (System.nanoTime() - t0) / 1e9;
            double cpu = ProcCpu.threadSeconds(t.pid(), "log-cleaner-");
            double cleaned = closedBytes(partition, sentinel) / MIB;
            return new Figures(dirty, cleaned, cpu, wall);
        }
    }

    /**
     * Creates the compacted topic and writes the seeded records, then (after segment.ms) the
     * sentinel; returns the sentinel's offset.
     */
    private static long fill(String bootstrap, int records, long seed) throws Exception {
        try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", bootstrap))) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(TOPIC, 1, (short) 1)
                                            .configs(
                                                    Map.of(
                                                            "cleanup.policy", "compact",
                                                            "segment.bytes",
                                                                    Integer.toString(4 << 20),
                                                            "segment.ms", Long.toString(SEGMENT_MS),
                                                            "min.cleanable.dirty.ratio", "0.01",
                                                            "min.compaction.lag.ms", "0"))))
                    .all()
                    .get();
        }
        Random random = new Random(seed);
        int keys = Math.max(1, records / 4);
        long last;
        try (KafkaProducer<byte[], byte[]> p =
                new KafkaProducer<>(
                        Map.<String, Object>of(
                                "bootstrap.servers",
                                bootstrap,
                                "acks",
                                "1",
                                "linger.ms",
                                10,
                                "batch.size",
                                128 << 10,
                                "enable.idempotence",
                                false),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                byte[] key =
                        String.format("key-%08d", random.nextInt(keys))
                                .getBytes(StandardCharsets.UTF_8);
                byte[] value = null;
                if (random.nextInt(10) != 0) {
                    value = new byte[100 + random.nextInt(800)];
                    random.nextBytes(value);
                }
                p.send(new ProducerRecord<>(TOPIC, 0, key, value));
            }
            p.flush();
            long after = System.currentTimeMillis() + SEGMENT_MS + 500;
            while (System.currentTimeMillis() < after) {
                Thread.sleep(50); // let segment.ms pass, so the sentinel rolls the segment
            }
            last =
                    p.send(new ProducerRecord<>(TOPIC, 0, "sentinel".getBytes(), new byte[1]))
                            .get()
                            .offset();
        } catch (ExecutionException e) {
            throw new IOException("produce to " + bootstrap + " failed", e.getCause());
        }
        return last;
    }

    /**
     * Polls Kafka's {@code cleaner-offset-checkpoint} (both servers write it) until {@code offset}.
     */
    private static void awaitCleaned(Path logDir, long offset) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
        while (checkpoint(logDir) < offset) {
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        "cleaner of " + logDir + " did not reach " + offset + " in 15 minutes");
            }
            Thread.sleep(50);
        }
    }

    private static long checkpoint(Path logDir) throws IOException {
        try {
            for (String line : Files.readAllLines(logDir.resolve("cleaner-offset-checkpoint"))) {
                String[] f = line.trim().split(" ");
                if (f.length == 3 && f[0].equals(TOPIC) && f[1].equals("0")) {
                    return Long.parseLong(f[2]);
                }
            }
        } catch (NoSuchFileException e) {
            // not written yet
        }
        return -1;
    }

    /** Bytes of the {@code .log} files whose base offset (their name) is below {@code offset}. */
    private static long closedBytes(Path partitionDir, long offset) throws IOException {
        long bytes = 0;
        try (Stream<Path> files = Files.list(partitionDir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String n = f.getFileName().toString();
                if (n.endsWith(".log") && Long.parseLong(n.substring(0, n.length() - 4)) < offset) {
                    bytes += Files.size(f);
                }
            }
        }
        return bytes;
    }

    /** Sums Kafka's "N MB of log processed in S seconds" lines: {MB, seconds}. */
    private static double[] kafkaOwnStats(Path out) throws IOException {
        double mb = 0;
        double secs = 0;
        Matcher m = KAFKA_STATS.matcher(Files.readString(out));
        while (m.find()) {
            mb += Double.parseDouble(m.group(1).replace(",", ""));
            secs += Double.parseDouble(m.group(2).replace(",", ""));
        }
        return new double[] {mb, secs};
    }

    private static String format(Figures f) {
        return String.format(
                "dirty %7.1f MiB -> %6.1f MiB, cleaner thread %6.2f CPU-s (%5.1f s wall):"
                        + " %6.1f MiB/s per core",
                f.dirtyMib(), f.cleanedMib(), f.cpuSeconds(), f.wallSeconds(), f.mibPerCpuSecond());
    }

    private static double median(List<Figures> fs) {
        return SideBySide.median(fs.stream().mapToDouble(Figures::mibPerCpuSecond).toArray());
    }
}
