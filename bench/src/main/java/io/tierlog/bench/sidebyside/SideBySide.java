package io.tierlog.bench.sidebyside;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The side-by-side benchmark (method and numbers in bench/README.md): starts Apache Kafka 4.4.0 and
 * tierlog on loopback, runs the same {@code ProducerPerformance} workloads and the same {@link
 * TailConsumer} against both, samples each server's CPU seconds before and after every phase, and
 * prints client MB/s, server CPU-s per GiB of record payload, and the ratios tierlog / Kafka. With
 * {@code --runs N} it prints the median of each figure over the runs.
 *
 * <p>Options: {@code --runs N} (default 1); {@code --peer tierlog|kafka} (second server; {@code
 * kafka} runs Kafka against Kafka as a sanity check of the harness); {@code --tierlog PATH}
 * (launcher, default {@code bin/tierlog}); {@code --set k=v} (extra tierlog settings, repeatable);
 * {@code --scale F} (multiply record counts, e.g. 0.1 for a quick try); {@code --workloads a,b}
 * (subset by name); {@code --work DIR} (scratch, default {@code bench/target/side-by-side}).
 *
 * <p>Thread-safety: a single-threaded program.
 */
public final class SideBySide {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final double MIB = 1024.0 * 1024;
    private static final Pattern PRODUCER_TOTAL =
            Pattern.compile("(\\d+) records sent, ([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\)");
    private static final Pattern CONSUMER_RESULT =
            Pattern.compile("RESULT records=(\\d+) bytes=(\\d+) seconds=([\\d.]+)");

    /**
     * One ProducerPerformance workload; {@code transactionMs} above 0 makes it transactional
     * (ProducerPerformance {@code --transactional-id}, a commit every {@code transactionMs}, acks
     * all as idempotence requires) and the consumer {@code read_committed}.
     */
    record Workload(
            String name, long records, int recordSize, String compression, long transactionMs) {
        Workload(String name, long records, int recordSize, String compression) {
            this(name, records, recordSize, compression, 0);
        }

        boolean transactional() {
            return transactionMs > 0;
        }

        double gib() {
            return records * (double) recordSize / GIB;
        }
    }

    /** Figures of one workload against one server in one run. */
    record Figures(
            double produceMBs,
            double consumeMBs,
            double produceCpuPerGib,
            double consumeCpuPerGib) {
        double get(int i) {
            return switch (i) {
                case 0 -> produceMBs;
                case 1 -> consumeMBs;
                case 2 -> produceCpuPerGib;
                default -> consumeCpuPerGib;
            };
        }

        @Override
        public String toString() {
            return String.format(
                    "produce %7.1f MB/s %7.2f CPU-s/GiB | consume %7.1f MB/s %7.2f CPU-s/GiB",
                    produceMBs, produceCpuPerGib, consumeMBs, consumeCpuPerGib);
        }
    }

    private static final String[] FIGURES = {
        "produce MB/s", "consume MB/s", "CPU-s/GiB produce", "CPU-s/GiB consume"
    };

    private SideBySide() {}

    public static void main(String[] args) throws Exception {
        int runs = 1;
        String peer = "tierlog";
        Path launcher = Path.of("bin/tierlog");
        Path work = Path.of("bench/target/side-by-side");
        double scale = 1.0;
        List<String> sets = new ArrayList<>();
        List<String> only = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--peer" -> peer = args[++i];
                case "--tierlog" -> launcher = Path.of(args[++i]);
                case "--set" -> sets.add(args[++i]);
                case "--scale" -> scale = Double.parseDouble(args[++i]);
                case "--workloads" -> only.addAll(List.of(args[++i].split(",")));
                case "--work" -> work = Path.of(args[++i]);
                default -> {
                    System.err.println("unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        List<Workload> workloads = new ArrayList<>();
        workloads.add(new Workload("2M x 100 B", Math.round(2_000_000 * scale), 100, "none"));
        workloads.add(new Workload("500k x 1 KiB", Math.round(500_000 * scale), 1024, "none"));
        workloads.add(new Workload("500k x 1 KiB zstd", Math.round(500_000 * scale), 1024, "zstd"));
        // issue 11: transactional ingest, a commit every 100 ms (Streams' default commit interval
        // for exactly_once_v2), read back read_committed
        workloads.add(
                new Workload("500k x 1 KiB txn", Math.round(500_000 * scale), 1024, "none", 100));
        if (!only.isEmpty()) {
            workloads.removeIf(w -> only.stream().noneMatch(o -> w.name().contains(o)));
        }
        Workload warmup = new Workload("warm-up", Math.round(300_000 * scale), 1024, "none");

        // results[workload][server] -> one Figures per run
        Map<String, Map<String, List<Figures>>> results = new LinkedHashMap<>();
        for (int run = 0; run < runs; run++) {
            Path runDir = work.resolve("run-" + run);
            deleteTree(runDir);
            Files.createDirectories(runDir);
            System.out.printf("== run %d/%d (%s)%n", run + 1, runs, runDir.toAbsolutePath());
            try (ServerUnderTest kafka = KafkaServer.start(runDir.resolve("kafka"));
                    ServerUnderTest other =
                            peer.equals("kafka")
                                    ? KafkaServer.start(runDir.resolve("kafka-peer"))
                                    : TierlogServer.start(
                                            launcher, runDir.resolve("tierlog"), sets)) {
                String[] labels = {"kafka", peer.equals("kafka") ? "kafka-peer" : "tierlog"};
                runOnce(List.of(kafka, other), labels, warmup, workloads, runDir, run, results);
            }
            deleteTree(runDir.resolve("kafka"));
            deleteTree(runDir.resolve("kafka-peer"));
            deleteTree(runDir.resolve("tierlog").resolve("data"));
        }
        report(results, runs);
    }

    /**
     * One run against two started servers: the warm-up workload (if not null) against each, not
     * counted, then every workload against both, alternating who goes first from run to run. Adds
     * each measured {@link Figures} to {@code results} (workload, then server label).
     */
    static void runOnce(
            List<ServerUnderTest> servers,
            String[] labels,
            Workload warmup,
            List<Workload> workloads,
            Path runDir,
            int run,
            Map<String, Map<String, List<Figures>>> results)
            throws IOException {
        if (warmup != null) {
            for (int s = 0; s < 2; s++) {
                Figures f = phase(servers.get(s), warmup, runDir, "warmup");
                System.out.printf("   %-10s %-18s %s (not counted)%n", labels[s], "warm-up", f);
            }
        }
        for (Workload w : workloads) {
            // alternate who goes first so neither always inherits the other's page-cache churn
            for (int k = 0; k < 2; k++) {
                int s = (k + run) % 2;
                String topic = "bench-" + w.name().replaceAll("[^A-Za-z0-9]+", "-") + "-" + run;
                Figures f = phase(servers.get(s), w, runDir, topic);
                System.out.printf("   %-10s %-18s %s%n", labels[s], w.name(), f);
                results.computeIfAbsent(w.name(), x -> new LinkedHashMap<>())
                        .computeIfAbsent(labels[s], x -> new ArrayList<>())
                        .add(f);
            }
        }
    }

    private static Figures phase(ServerUnderTest server, Workload w, Path runDir, String topic)
            throws IOException {
        createTopic(server.bootstrapServers(), topic);
        Path out = runDir.resolve(server.name() + "-" + topic + ".out");
        double cpu0 = server.cpuSeconds();
        List<String> producer = new ArrayList<>();
        producer.addAll(
                List.of(
                        "org.apache.kafka.tools.ProducerPerformance",
                        "--topic",
                        topic,
                        "--num-records",
                        Long.toString(w.records()),
                        "--record-size",
                        Integer.toString(w.recordSize()),
                        "--throughput",
                        "-1",
                        "--producer-props",
                        "bootstrap.servers=" + server.bootstrapServers(),
                        "acks=" + (w.transactional() ? "all" : "1"),
                        "compression.type=" + w.compression()));
        if (w.transactional()) {
            producer.addAll(
                    List.of(
                            "--transactional-id",
                            "bench-" + topic,
                            "--transaction-duration-ms",
                            Long.toString(w.transactionMs())));
        }
        int rc =
                Children.run(
                        Children.java(List.of("-Xmx1g", "-XX:+UseG1GC"), producer, out),
                        Duration.ofMinutes(20));
        double cpu1 = server.cpuSeconds();
        Matcher pm = lastMatch(PRODUCER_TOTAL, out);
        if (rc != 0 || pm == null) {
            throw new IOException(
                    "ProducerPerformance failed (" + rc + "):\n" + Children.tail(out));
        }
        double produceMBs = Double.parseDouble(pm.group(3));
        rc =
                Children.run(
                        Children.java(
                                List.of("-Xmx1g", "-XX:+UseG1GC"),
                                List.of(
                                        TailConsumer.class.getName(),
                                        server.bootstrapServers(),
                                        topic,
                                        w.transactional() ? "read_committed" : "read_uncommitted"),
                                out),
                        Duration.ofMinutes(20));
        double cpu2 = server.cpuSeconds();
        Matcher cm = lastMatch(CONSUMER_RESULT, out);
        if (rc != 0 || cm == null) {
            throw new IOException("TailConsumer failed (" + rc + "):\n" + Children.tail(out));
        }
        long consumed = Long.parseLong(cm.group(1));
        // every transaction commits, so read_committed sees every record; control batches take
        // offsets but are never returned
        if (consumed != w.records()) {
            throw new IOException(
                    server.name() + " served " + consumed + " records of " + w.records());
        }
        double consumeMBs = Long.parseLong(cm.group(2)) / MIB / Double.parseDouble(cm.group(3));
        return new Figures(
                produceMBs, consumeMBs, (cpu1 - cpu0) / w.gib(), (cpu2 - cpu1) / w.gib());
    }

    private static void createTopic(String bootstrap, String topic) throws IOException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            // the producer's metadata request auto-creates it where CreateTopics is missing
            System.out.println(
                    "   (CreateTopics " + topic + " failed: " + e + "; relying on auto-create)");
        }
    }

    private static Matcher lastMatch(Pattern p, Path file) throws IOException {
        Matcher found = null;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                found = m;
            }
        }
        return found;
    }

    /** Prints the medians of each figure over the runs and the ratio row second / first. */
    static void report(Map<String, Map<String, List<Figures>>> results, int runs) {
        System.out.printf("%n== medians of %d run(s)%n", runs);
        System.out.printf(
                "%-18s %-10s %13s %13s %18s %18s%n",
                "case", "server", FIGURES[0], FIGURES[1], FIGURES[2], FIGURES[3]);
        for (Map.Entry<String, Map<String, List<Figures>>> e : results.entrySet()) {
            List<String> servers = new ArrayList<>(e.getValue().keySet());
            servers.sort(Comparator.naturalOrder());
            double[][] med = new double[servers.size()][4];
            for (int s = 0; s < servers.size(); s++) {
                for (int i = 0; i < 4; i++) {
                    final int fi = i;
                    med[s][i] =
                            median(
                                    e.getValue().get(servers.get(s)).stream()
                                            .mapToDouble(f -> f.get(fi))
                                            .toArray());
                }
                System.out.printf(
                        "%-18s %-10s %13.1f %13.1f %18.2f %18.2f%n",
                        e.getKey(), servers.get(s), med[s][0], med[s][1], med[s][2], med[s][3]);
            }
            if (servers.size() == 2) {
                // sorted: "kafka" first, then "kafka-peer" or "tierlog"; the row is second / first
                System.out.printf(
                        "%-18s %-10s %13.2f %13.2f %18.2f %18.2f%n",
                        e.getKey(),
                        "ratio",
                        med[1][0] / med[0][0],
                        med[1][1] / med[0][1],
                        med[1][2] / med[0][2],
                        med[1][3] / med[0][3]);
            }
        }
        System.out.println(
                "targets (issues 3, 11): tierlog/kafka CPU-s/GiB produce <= 0.7 (txn too),"
                        + " consume <= 1.0;"
                        + " MB/s ratios >= 1.0");
    }

    static double median(double[] xs) {
        double[] s = xs.clone();
        java.util.Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
