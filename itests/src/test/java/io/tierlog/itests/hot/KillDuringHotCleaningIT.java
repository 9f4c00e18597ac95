package io.tierlog.itests.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.common.testing.Property;
import io.tierlog.itests.testing.InProcessCli;
import io.tierlog.itests.testing.ServeProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a {@code tierlog serve} child while its hot-tier cleaner compacts a topic of tiny
 * segments continuously and an acks=all producer writes keyed updates, many times over at seeded
 * random moments, some of them while a {@code .cleaned} or {@code .swap} file of an unfinished
 * clean is on disk. After every 5th restart and the last, {@code tierlog verify} (run next to the
 * live server) finds no violation; after every restart the log opens and serves from offset 0 with
 * ascending offsets, and every key's value is its last acknowledged update or a later attempted one
 * (compaction never loses an acknowledged latest value, and a crash never resurrects an older one).
 *
 * <p>Values are {@code key:seq} with {@code seq} rising per key, so "later" is comparable.
 */
class KillDuringHotCleaningIT {
    private static final String TOPIC = "kill-compacted";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int KILLS = Integer.getInteger("tierlog.killDuringCleaning.kills", 30);
    private static final int VERIFY_EVERY = 5;
    private static final int UPDATES_PER_CYCLE = 4000;

    /** How long a read of the partition may go without its position advancing. */
    private static final Duration STALL = Duration.ofSeconds(30);

    @TempDir Path dir;

    @Test
    void killMinus9DuringHotCleaningNeverLosesAnAcknowledgedLatestValue() throws Exception {
        Property.forAll(1, this::killRepeatedly);
    }

    private void killRepeatedly(Random random) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + port;
        Path data = dir.resolve("data");
        Path partitionDir = data.resolve("log").resolve(TOPIC + "-0");
        int keys = Property.between(random, 20, 200);
        // per key: the highest seq acknowledged, and the highest seq ever sent
        Map<String, Long> acked = new ConcurrentHashMap<>();
        Map<String, Long> attempted = new ConcurrentHashMap<>();
        AtomicLong seq = new AtomicLong();
        int midClean = 0;
        int served = 0;
        int verifies = 0;
        long restartNanos = 0;
        Process server = start(port, data, 0, true);
        try {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(
                                List.of(new NewTopic(TOPIC, 1, (short) 1).configs(topicConfigs())))
                        .all()
                        .get();
            }
            for (int kill = 1; kill <= KILLS; kill++) {
                AtomicBoolean stop = new AtomicBoolean();
                long producerSeed = random.nextLong();
                Thread producer =
                        new Thread(
                                () ->
                                        produce(
                                                bootstrap,
                                                producerSeed,
                                                keys,
                                                seq,
                                                acked,
                                                attempted,
                                                stop),
                                "producer-" + kill);
                producer.start();
                // the kill schedule: after a random time, and every third time at the first sight
                // of an unfinished clean (a poll of the partition folder, up to 5 s)
                Thread.sleep(150 + random.nextInt(1200));
                boolean cleaning = cleaningInProgress(partitionDir);
                if (kill % 3 == 0) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (!cleaning && System.nanoTime() < deadline) {
                        Thread.sleep(1);
                        cleaning = cleaningInProgress(partitionDir);
                    }
                }
                server.destroyForcibly().waitFor();
                if (cleaning || cleaningInProgress(partitionDir)) {
                    midClean++;
                }
                stop.set(true);
                producer.join(TimeUnit.SECONDS.toMillis(60));
                Map<String, Long> ackedBefore = Map.copyOf(acked);

                long t0 = System.nanoTime();
                server = start(port, data, kill, true);
                restartNanos += System.nanoTime() - t0;
                // verify (both tiers, read-only, next to the live server and its cleaner's swaps)
                // every 5th restart and after the last: its cost is what bounds this test's run
                // time; the latest values are checked after every restart
                if (kill % VERIFY_EVERY == 0 || kill == KILLS) {
                    InProcessCli.Cli verify =
                            InProcessCli.run("--verbose", "verify", "--set", "data.dir=" + data);
                    assertThat(verify.exit())
                            .as(
                                    "tierlog verify after kill %d: %s",
                                    kill, verify.out() + verify.err())
                            .isZero();
                    verifies++;
                }
                served = checkLatest(bootstrap, ackedBefore, attempted, kill);
            }
            // The throttle only makes a clean long enough to be killed in; a read back to back
            // is over before a throttled pass gets through what the kills left dirty (tens of MB at
            // 200 kB/s read twice). One more restart, unthrottled: its pass compacts the log.
            server.destroyForcibly().waitFor();
            server = start(port, data, KILLS + 1, false);
            long sent = seq.get();
            Map<String, Long> ackedAtEnd = Map.copyOf(acked);
            served =
                    Await.until(
                            "the unthrottled cleaner compacting the log",
                            () -> checkLatest(bootstrap, ackedAtEnd, attempted, KILLS + 1),
                            n -> n < sent / 2,
                            Duration.ofMinutes(2));
        } finally {
            server.destroyForcibly().waitFor();
        }
        System.out.printf(
                "%d kills (%d with a clean in progress), %d keys, %d updates sent, %d records"
                        + " served at the end; restart %.2f s on average; %d verifies%n",
                KILLS, midClean, keys, seq.get(), served, restartNanos / 1e9 / KILLS, verifies);
        assertThat(midClean).as("kills that hit a clean in progress").isPositive();
        assertThat((long) served)
                .as("records served at the end: the cleaner compacted the log")
                .isLessThan(seq.get() / 2);
    }

    /**
     * Whether a clean left its intermediate files ({@code .cleaned}, {@code .swap}) in the folder.
     */
    private static boolean cleaningInProgress(Path partitionDir) {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.map(p -> p.getFileName().toString())
                    .anyMatch(n -> n.endsWith(".cleaned") || n.endsWith(".swap"));
        } catch (IOException e) {
            return false; // not created yet, or a file renamed under the listing
        }
    }

    /**
     * Reads the partition from offset 0 to its end: offsets ascend, and each key's value is at
     * least its last acknowledged update and at most its last attempted one.
     *
     * <p>Polls back to back, as a consumer's loop does, and fails only when the position stops
     * advancing for {@link #STALL}: a fetch returns one segment (as Kafka's), and a pass of the
     * cleaner leaves every dirty segment its own group (grouped by pre-clean size, as Kafka's), so
     * after a restart the log may hold a thousand segments of one empty batch each until the next
     * pass merges them. A 4.x consumer's poll returns as soon as its position advances, even with
     * no records, so a walk paced by {@link Await}'s backoff took 100 ms a segment, over 100 s for
     * such a log; back to back it takes a few ms a segment.
     */
    private static int checkLatest(
            String bootstrap, Map<String, Long> acked, Map<String, Long> attempted, int kill) {
        Map<String, Long> latest = new HashMap<>();
        long last = -1;
        int read = 0;
        try (KafkaConsumer<String, String> c =
                new KafkaConsumer<>(
                        Map.of("bootstrap.servers", bootstrap, "enable.auto.commit", false),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            c.assign(List.of(TP));
            c.seek(TP, 0);
            long end = c.endOffsets(List.of(TP), Duration.ofSeconds(30)).get(TP);
            long position = c.position(TP);
            long lastProgress = System.nanoTime();
            while (position < end) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    assertThat(r.offset()).as("offsets ascend").isGreaterThan(last);
                    last = r.offset();
                    read++;
                    String[] kv = r.value().split(":");
                    assertThat(kv[0]).as("value of key %s", r.key()).isEqualTo(r.key());
                    latest.put(r.key(), Long.parseLong(kv[1]));
                }
                long at = c.position(TP);
                if (at > position) {
                    position = at;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > STALL.toNanos()) {
                    throw new AssertionError(
                            "after kill "
                                    + kill
                                    + " the read to "
                                    + end
                                    + " made no progress for "
                                    + STALL
                                    + " at position "
                                    + position);
                }
            }
        }
        acked.forEach(
                (key, seq) -> {
                    assertThat(latest.get(key))
                            .as(
                                    "after kill %d, key %s acknowledged up to update %d",
                                    kill, key, seq)
                            .isNotNull()
                            .isGreaterThanOrEqualTo(seq)
                            .isLessThanOrEqualTo(attempted.get(key));
                });
        return read;
    }

    /** Keyed updates, acks=all, until {@code stop} (or until the server is gone). */
    private static void produce(
            String bootstrap,
            long seed,
            int keys,
            AtomicLong seq,
            Map<String, Long> acked,
            Map<String, Long> attempted,
            AtomicBoolean stop) {
        Random random = new Random(seed);
        try (KafkaProducer<String, String> p =
                new KafkaProducer<>(
                        Map.of(
                                "bootstrap.servers", bootstrap,
                                "acks", "all",
                                "linger.ms", 2,
                                "delivery.timeout.ms", 5000,
                                "request.timeout.ms", 3000,
                                "max.block.ms", 3000),
                        new StringSerializer(),
                        new StringSerializer())) {
            // at most UPDATES_PER_CYCLE per cycle: the throttled cleaner then keeps up between
            // kills, so kills land in its passes (an unbounded producer leaves a backlog whose
            // offset-map scan takes most of the time, and few kills find a clean writing files)
            int sent = 0;
            while (!stop.get()) {
                if (sent++ >= UPDATES_PER_CYCLE) {
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // idle to the kill
                    continue;
                }
                String key = "k" + random.nextInt(keys);
                long s = seq.incrementAndGet();
                attempted.merge(key, s, Math::max);
                p.send(
                        new ProducerRecord<>(
                                TOPIC,
                                0,
                                key,
                                key + ":" + s + ":" + "x".repeat(random.nextInt(200))),
                        (m, e) -> {
                            if (e == null) {
                                acked.merge(key, s, Math::max);
                            }
                        });
                if (random.nextInt(16) == 0) {
                    p.flush();
                }
            }
            // the server is dead: fail what is in flight now rather than after delivery.timeout.ms
            p.close(Duration.ZERO);
        } catch (RuntimeException e) {
            // the server was killed under a send: what was acknowledged is recorded
        }
    }

    private static Map<String, String> topicConfigs() {
        return Map.of(
                "cleanup.policy", "compact",
                "internal.segment.bytes", "4096",
                "segment.ms", "500",
                "min.cleanable.dirty.ratio", "0.01",
                "min.compaction.lag.ms", "0",
                "delete.retention.ms", "1000");
    }

    private Process start(int port, Path data, int n, boolean throttled) throws IOException {
        return ServeProcess.start(
                dir.resolve("serve-" + n + ".log"),
                port,
                data,
                ServeProcess.QUICK_START,
                "offload.interval.ms=200",
                "log.cleaner.backoff.ms=50",
                "log.cleaner.dedupe.buffer.size=1048576",
                // throttled, so a clean of even this small log takes long enough to be killed in
                "log.cleaner.io.max.bytes.per.second=" + (throttled ? 200000 : Long.MAX_VALUE));
    }
}
