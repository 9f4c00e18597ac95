package io.tierlog.bench.sidebyside;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Consumer-group benchmark, Apache Kafka 4.4.0 and tierlog side by side (same run, alternating who
 * goes first): the time from {@code subscribe()} to the first record for a new classic group member
 * (FindCoordinator, JoinGroup, SyncGroup, OffsetFetch, ListOffsets, Fetch: what an application
 * waits for at start), and OffsetCommit throughput, synchronous from one group member and
 * asynchronous from several members of one group, each committing its own partition. The clients
 * run in this JVM (kafka-clients 4.4, {@code group.protocol=classic}); the servers are child
 * processes as in {@link SideBySide}, Kafka with {@code group.initial.rebalance.delay.ms=0}
 * (tierlog has no initial delay). Prints each run's figures, then medians and the ratio row tierlog
 * / Kafka (for join time lower is better; for commits/s higher is better).
 *
 * <p>Options: {@code --runs N} (default 3), {@code --joins N} (joins per run, median taken, default
 * 10), {@code --seconds S} (each commit phase, default 5), {@code --members N} (async committers,
 * default 4), {@code --tierlog PATH}, {@code --work DIR}, {@code --set k=v} (a tierlog setting,
 * repeatable), {@code --smoke} (one run, 2 joins, 1 s phases: checks the harness works, numbers
 * meaningless).
 *
 * <p>Thread-safety: a single-threaded program apart from the async committers, each of which owns
 * its consumer.
 */
public final class GroupBench {
    /** Figures of one server in one run. */
    record Figures(double joinMs, double syncCommitsPerSec, double asyncCommitsPerSec) {
        double get(int i) {
            return switch (i) {
                case 0 -> joinMs;
                case 1 -> syncCommitsPerSec;
                default -> asyncCommitsPerSec;
            };
        }

        @Override
        public String toString() {
            return String.format(
                    "join->first record %7.1f ms | sync commits %8.0f/s | async commits %8.0f/s",
                    joinMs, syncCommitsPerSec, asyncCommitsPerSec);
        }
    }

    private static final String[] FIGURES = {
        "join ms (median)", "sync commits/s", "async commits/s"
    };

    private GroupBench() {}

    public static void main(String[] args) throws Exception {
        int runs = 3;
        int joins = 10;
        double seconds = 5;
        int members = 4;
        Path launcher = Path.of("bin/tierlog");
        Path work = Path.of("bench/target/group-bench");
        List<String> sets = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--joins" -> joins = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--members" -> members = Integer.parseInt(args[++i]);
                case "--tierlog" -> launcher = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--set" -> sets.add(args[++i]);
                case "--smoke" -> {
                    runs = 1;
                    joins = 2;
                    seconds = 1;
                    members = 2;
                }
                default -> {
                    System.err.println("unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        Map<String, List<Figures>> results = new LinkedHashMap<>();
        for (int run = 0; run < runs; run++) {
            Path runDir = work.resolve("run-" + run);
            SideBySide.deleteTree(runDir);
            System.out.printf("== run %d/%d (%s)%n", run + 1, runs, runDir.toAbsolutePath());
            try (ServerUnderTest kafka = KafkaServer.start(runDir.resolve("kafka"));
                    ServerUnderTest tierlog =
                            TierlogServer.start(launcher, runDir.resolve("tierlog"), sets)) {
                runOnce(List.of(kafka, tierlog), run, joins, seconds, members, true, results);
            }
            SideBySide.deleteTree(runDir);
        }
        report(results, runs, members);
    }

    /**
     * One run against two started servers: a warm-up pass against each (not counted) if {@code
     * warmUp}, then the measured pass against both, alternating who goes first from run to run.
     * Adds each server's {@link Figures} to {@code results} under its name.
     */
    static void runOnce(
            List<ServerUnderTest> servers,
            int run,
            int joins,
            double seconds,
            int members,
            boolean warmUp,
            Map<String, List<Figures>> results)
            throws Exception {
        if (warmUp) {
            for (ServerUnderTest s : servers) {
                // the JITs of both sides and of the client
                measure(s, "warm-" + run, Math.max(2, joins / 2), seconds / 2, members);
            }
        }
        for (int k = 0; k < 2; k++) {
            ServerUnderTest s = servers.get((k + run) % 2);
            Figures f = measure(s, "run-" + run, joins, seconds, members);
            System.out.printf("   %-8s %s%n", s.name(), f);
            results.computeIfAbsent(s.name(), x -> new ArrayList<>()).add(f);
        }
    }

    private static Figures measure(
            ServerUnderTest server, String tag, int joins, double seconds, int members)
            throws Exception {
        String b = server.bootstrapServers();
        String joinTopic = "join-" + tag;
        String commitTopic = "commit-" + tag;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(joinTopic, 3, (short) 1),
                                    new NewTopic(commitTopic, members, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        try (KafkaProducer<byte[], byte[]> p = producer(b)) {
            for (int part = 0; part < 3; part++) {
                p.send(new ProducerRecord<>(joinTopic, part, null, new byte[100])).get();
            }
        }
        double[] joinMs = new double[joins];
        for (int j = 0; j < joins; j++) {
            joinMs[j] = joinToFirstRecordMs(b, joinTopic, "join-" + tag + "-" + j);
        }
        double sync = syncCommits(b, commitTopic, "sync-" + tag, seconds, members);
        double async = asyncCommits(b, commitTopic, "async-" + tag, seconds, members);
        return new Figures(SideBySide.median(joinMs), sync, async);
    }

    private static double joinToFirstRecordMs(String b, String topic, String group) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(b, group)) {
            long t0 = System.nanoTime();
            c.subscribe(List.of(topic));
            long deadline = t0 + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                if (!c.poll(Duration.ofMillis(50)).isEmpty()) {
                    return (System.nanoTime() - t0) / 1e6;
                }
            }
            throw new IllegalStateException(group + " got no record in 60 s");
        }
    }

    /** One group member committing its partition's offset synchronously, back to back. */
    private static double syncCommits(
            String b, String topic, String group, double seconds, int partitions) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(b, group)) {
            c.subscribe(List.of(topic));
            awaitAssignment(List.of(c), partitions);
            TopicPartition tp = c.assignment().iterator().next();
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long n = 0;
            long t0 = System.nanoTime();
            while (System.nanoTime() < end) {
                c.commitSync(Map.of(tp, new OffsetAndMetadata(n)));
                n++;
            }
            return n / ((System.nanoTime() - t0) / 1e9);
        }
    }

    /**
     * {@code members} members of one group, each committing its own partition asynchronously from
     * its own thread with up to 64 commits in flight; completed commits per second, all members.
     */
    private static double asyncCommits(
            String b, String topic, String group, double seconds, int members) throws Exception {
        List<KafkaConsumer<byte[], byte[]>> cs = new ArrayList<>();
        try {
            for (int i = 0; i < members; i++) {
                KafkaConsumer<byte[], byte[]> c = consumer(b, group);
                c.subscribe(List.of(topic));
                cs.add(c);
            }
            awaitAssignment(cs, members);
            AtomicLong done = new AtomicLong();
            AtomicReference<Exception> failed = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            long[] elapsed = new long[members];
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < members; i++) {
                KafkaConsumer<byte[], byte[]> c = cs.get(i);
                int me = i;
                Thread t =
                        new Thread(
                                () -> {
                                    try {
                                        start.await();
                                        elapsed[me] = commitAsyncLoop(c, seconds, done, failed);
                                    } catch (Exception e) {
                                        failed.compareAndSet(null, e);
                                    }
                                },
                                "committer-" + i);
                t.start();
                threads.add(t);
            }
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            if (failed.get() != null) {
                throw new IllegalStateException("async commit failed", failed.get());
            }
            long longest = 0;
            for (long e : elapsed) {
                longest = Math.max(longest, e);
            }
            return done.get() / (longest / 1e9);
        } finally {
            for (KafkaConsumer<byte[], byte[]> c : cs) {
                c.close(Duration.ofSeconds(5));
            }
        }
    }

    private static long commitAsyncLoop(
            KafkaConsumer<byte[], byte[]> c,
            double seconds,
            AtomicLong done,
            AtomicReference<Exception> failed) {
        TopicPartition tp = c.assignment().iterator().next();
        AtomicLong mine = new AtomicLong();
        long t0 = System.nanoTime();
        long end = t0 + (long) (seconds * 1e9);
        long sent = 0;
        while (System.nanoTime() < end && failed.get() == null) {
            if (sent - mine.get() < 64) {
                c.commitAsync(
                        Map.of(tp, new OffsetAndMetadata(sent)),
                        (offsets, e) -> {
                            if (e != null) {
                                failed.compareAndSet(null, e);
                            } else {
                                mine.incrementAndGet();
                            }
                        });
                sent++;
            } else {
                // runs the completed commits' callbacks; the topic is empty, so no records
                c.poll(Duration.ofMillis(1));
            }
        }
        // the commits still in flight complete here, inside the measured time
        c.commitSync(Map.of(tp, new OffsetAndMetadata(sent)));
        long elapsed = System.nanoTime() - t0;
        done.addAndGet(mine.get() + 1);
        return elapsed;
    }

    /**
     * Polls every consumer in turn until they share {@code partitions} evenly, three rounds in a
     * row.
     */
    private static void awaitAssignment(List<KafkaConsumer<byte[], byte[]>> cs, int partitions) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int stableRounds = 0;
        while (stableRounds < 3) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("group did not settle in 120 s");
            }
            int owned = 0;
            boolean eachOne = true;
            for (KafkaConsumer<byte[], byte[]> c : cs) {
                ConsumerRecords<byte[], byte[]> ignored = c.poll(Duration.ofMillis(20));
                owned += c.assignment().size();
                eachOne &= c.assignment().size() == partitions / cs.size();
            }
            stableRounds = owned == partitions && eachOne ? stableRounds + 1 : 0;
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String b, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, b);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return new KafkaConsumer<>(p);
    }

    private static KafkaProducer<byte[], byte[]> producer(String b) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return new KafkaProducer<>(p);
    }

    /** Prints the medians of each figure over the runs and the ratio row tierlog / Kafka. */
    static void report(Map<String, List<Figures>> results, int runs, int members) {
        System.out.printf("%n== medians of %d run(s); async: %d members%n", runs, members);
        System.out.printf("%-8s %18s %16s %16s%n", "server", FIGURES[0], FIGURES[1], FIGURES[2]);
        double[][] med = new double[2][3];
        String[] names = {"kafka", "tierlog"};
        for (int s = 0; s < 2; s++) {
            List<Figures> fs = results.getOrDefault(names[s], List.of());
            for (int i = 0; i < 3; i++) {
                final int fi = i;
                med[s][i] = SideBySide.median(fs.stream().mapToDouble(f -> f.get(fi)).toArray());
            }
            System.out.printf(
                    "%-8s %18.1f %16.0f %16.0f%n", names[s], med[s][0], med[s][1], med[s][2]);
        }
        System.out.printf(
                "%-8s %18.2f %16.2f %16.2f%n",
                "ratio", med[1][0] / med[0][0], med[1][1] / med[0][1], med[1][2] / med[0][2]);
        System.out.println(
                "ratio = tierlog / kafka (join: lower is better; commits/s: higher is better)");
    }
}
