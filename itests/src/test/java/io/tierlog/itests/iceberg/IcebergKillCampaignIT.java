package io.tierlog.itests.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.common.testing.Await;
import io.tierlog.itests.testing.InProcessCli;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.SplittableRandom;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's exactly-once proof under kill -9: a {@code tierlog serve} child with small segments, a
 * 2 s freshness target (so segments roll, offload and register every second), cold retention on one
 * topic and small-object merging on, under an acks=all trickle producer, is killed at least {@code
 * tierlog.iceberg.kills} times (default 30): at seeded random moments, and at the named halt hooks
 * (the process halts itself with exit 137 there): before and after the table commit, between
 * retention's catalog commit and the table delete, and around a merge's catalog replace.
 *
 * <p>After every kill (server down), read straight from {@code iceberg.db} and the bucket's files:
 * no data file twice, no (partition, offset) in two live files, every live file in the bucket (the
 * table lets go before the bucket), each file's partition, key, offsets and record count as the
 * catalog has them. After every restart, every object the catalog held at the kill (and still
 * holds) appears in the table, without a duplicate. At the end, with the producer stopped: the
 * table holds exactly the catalog's objects, every acknowledged record is read back from Kafka at
 * its offset, and {@code tierlog verify} passes (also every 5th converged restart).
 *
 * <p>The seed is printed; rerun with {@code -Dtierlog.iceberg.seed=<seed>}. The interleaving with
 * the server's own threads is not reproducible to the millisecond; the schedule is.
 */
class IcebergKillCampaignIT {
    private static final String TOPIC = "ice";
    private static final String RETAINED = "ice-retained";
    private static final String NAMESPACE = "tierlog";
    private static final int KILLS = Integer.getInteger("tierlog.iceberg.kills", 30);
    private static final Duration HOOK_WAIT = Duration.ofSeconds(12);
    private static final Duration CONVERGE = Duration.ofSeconds(20);

    /** Where a cycle's kill falls. */
    enum Point {
        RANDOM_ANYWHERE(null),
        RANDOM_AFTER_CONVERGED(null),
        BEFORE_COMMIT("before-commit"),
        AFTER_COMMIT("after-commit"),
        RETENTION_BEFORE_TABLE("retention-before-table"),
        MERGE_BEFORE_COMMIT("merge-before-commit"),
        MERGE_AFTER_COMMIT("merge-after-commit");

        final String hook;

        Point(String hook) {
            this.hook = hook;
        }
    }

    @TempDir Path dir;

    private final List<String> problems = new ArrayList<>();

    /** How many objects the last {@link #pollUntil} found owed by the table. */
    private int lastOwed;

    private TableReader reader;
    private Path data;

    @Test
    void killMinus9AtRandomAndAtEveryRegistrationHookLeavesEveryObjectInTheTableExactlyOnce()
            throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.iceberg", "warn");
        String seedProperty = System.getProperty("tierlog.iceberg.seed", "");
        long seed =
                seedProperty.isBlank()
                        ? new SplittableRandom().nextLong()
                        : Long.parseLong(seedProperty.strip());
        System.out.printf(
                "iceberg kill campaign: seed %d, %d kills (rerun: -Dtierlog.iceberg.seed=%d)%n",
                seed, KILLS, seed);
        Random random = new Random(seed);
        long started = System.nanoTime();
        data = dir.resolve("data");
        reader = new TableReader(data, "tierlog");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ServerChild server = new ServerChild(port, settings(data), dir.resolve("serve.log"));
        Map<Point, int[]> hits = new EnumMap<>(Point.class); // [drawn, hit]
        int converged = 0;
        int verifies = 0;
        TrickleProducer producer =
                new TrickleProducer(
                        server.bootstrap(),
                        List.of(
                                new TopicPartition(TOPIC, 0),
                                new TopicPartition(TOPIC, 1),
                                new TopicPartition(RETAINED, 0)),
                        60,
                        150);
        try {
            // the first server dumps a class archive for the restarts: it creates the topics and
            // registers their first objects (so the registrar's classes are in it too), then stops
            server.shareClasses(
                    ClassArchive.classpath(dir.resolve("classpath")), dir.resolve("ice.jsa"));
            server.startListening();
            createTopics(server.bootstrap());
            producer.start();
            long dumpStart = System.nanoTime();
            Await.atMost(
                    Duration.ofSeconds(60),
                    () -> {
                        try {
                            return check(TOPIC).liveFiles();
                        } catch (RuntimeException notYet) {
                            return 0; // no catalog or table yet
                        }
                    },
                    files -> files > 0);
            server.stop(Duration.ofSeconds(60));
            System.out.printf(
                    "class archive %s (%d ms)%n",
                    server.useArchive() ? "written" : "NOT written",
                    (System.nanoTime() - dumpStart) / 1_000_000);
            Instant killedAt = Instant.now(); // the last kill: what the catalog held is owed
            for (int kill = 1; kill <= KILLS; kill++) {
                Point point = draw(random);
                int skip = random.nextInt(2);
                hits.computeIfAbsent(point, p -> new int[2])[0]++;
                Map<String, String> props = new LinkedHashMap<>();
                if (point.hook != null) {
                    props.put("tierlog.iceberg.halt.at", point.hook);
                    props.put("tierlog.iceberg.halt.skip", Integer.toString(skip));
                }
                server.start(props);
                long startedAt = System.nanoTime();
                // the schedule's times count from the listener (a loaded machine starts slowly);
                // a hook may halt the server before it listens
                boolean listening = server.awaitListening(Duration.ofSeconds(90));
                long cycleStart = System.nanoTime();
                String outcome;
                boolean didConverge = false;
                if (!listening && server.exitStatus().orElse(0) != 137) {
                    problems.add(
                            "kill "
                                    + kill
                                    + ": server did not listen (exit "
                                    + server.exitStatus()
                                    + "): "
                                    + server.tail(20));
                    break;
                }
                switch (point) {
                    case RANDOM_ANYWHERE -> {
                        long at = cycleStart + (300 + random.nextInt(3500)) * 1_000_000L;
                        didConverge = pollUntil(server, killedAt, at);
                        watchUntil(server, at);
                        server.kill();
                        outcome = "killed " + (System.nanoTime() - cycleStart) / 1_000_000 + " ms";
                    }
                    case RANDOM_AFTER_CONVERGED -> {
                        didConverge =
                                pollUntil(server, killedAt, System.nanoTime() + CONVERGE.toNanos());
                        if (!didConverge && server.isAlive()) {
                            problems.add(
                                    "kill "
                                            + kill
                                            + ": the restarted server did not register the"
                                            + " objects of the kill within "
                                            + CONVERGE.toSeconds()
                                            + " s: "
                                            + check(TOPIC).describe());
                        }
                        if (didConverge && lastOwed > 0 && kill % 5 == 0) {
                            verify("after kill " + (kill - 1) + "'s restart");
                            verifies++;
                        }
                        long at = System.nanoTime() + random.nextInt(1500) * 1_000_000L;
                        watchUntil(server, at);
                        server.kill();
                        outcome = "killed " + (System.nanoTime() - cycleStart) / 1_000_000 + " ms";
                    }
                    default -> {
                        long deadline = System.nanoTime() + HOOK_WAIT.toNanos();
                        didConverge = pollUntil(server, killedAt, deadline);
                        watchUntil(server, deadline);
                        OptionalInt exit = server.awaitExit(Duration.ZERO);
                        if (exit.isPresent() && exit.getAsInt() == 137) {
                            hits.get(point)[1]++;
                            outcome =
                                    "halted at "
                                            + point.hook
                                            + " "
                                            + (System.nanoTime() - startedAt) / 1_000_000
                                            + " ms after the start"
                                            + (listening ? "" : " (before listening)");
                        } else if (exit.isPresent()) {
                            problems.add(
                                    "kill "
                                            + kill
                                            + ": server exited "
                                            + exit.getAsInt()
                                            + " (not a halt hook): "
                                            + server.tail(20));
                            outcome = "exited " + exit.getAsInt();
                        } else {
                            server.kill();
                            outcome = "hook " + point.hook + " not reached, killed";
                        }
                    }
                }
                if (didConverge && lastOwed > 0) {
                    converged++;
                }
                // the server is down: the safety invariants, and what the restart owes the table
                TableCheck t = check(TOPIC);
                TableCheck r = check(RETAINED);
                safety("after kill " + kill, t);
                safety("after kill " + kill, r);
                killedAt = Instant.now();
                System.out.printf(
                        "kill %d/%d %s skip=%d: %s; acked %d; %s; %s%n",
                        kill,
                        KILLS,
                        point,
                        skip,
                        outcome,
                        producer.acked(),
                        t.describe(),
                        r.describe());
            }
            // the end: an unarmed restart converges, then the producer stops and the table
            // settles on exactly the catalog's objects
            // no merge in the last phase: a merge's catalog replace right before the final stop
            // would leave the table's rewrite to the next start, and verify would see it pending
            server.start(Map.of(), Map.of("offload.merge.enabled", "false"));
            assertThat(server.awaitListening(Duration.ofSeconds(90)))
                    .as("last restart; log %s", server.log())
                    .isTrue();
            if (pollUntil(server, killedAt, System.nanoTime() + CONVERGE.toNanos())) {
                converged++;
            } else {
                problems.add("the last restart did not register the objects of the last kill");
            }
            producer.stop();
            for (String topic : List.of(TOPIC, RETAINED)) {
                TableCheck end =
                        Await.atMost(Duration.ofSeconds(60), () -> check(topic), TableCheck::exact);
                if (!end.exact()) {
                    problems.add("the table of " + topic + " did not settle: " + end.describe());
                }
                System.out.println("end: " + end.describe());
            }
            KafkaReadBack.Result read =
                    KafkaReadBack.check(server.bootstrap(), producer, Duration.ofSeconds(90));
            problems.addAll(read.problems());
            assertThat(server.stop(Duration.ofSeconds(30))).as("graceful stop").isTrue();
            verify("at the end");
            verifies++;
            System.out.printf(
                    "iceberg kill campaign seed %d: %d kills, hooks [drawn, hit] %s, %d converged"
                            + " restarts, %d verifies, %d acked (%d failed sends), %d read, %d"
                            + " checked, %.1f s%n",
                    seed,
                    KILLS,
                    describe(hits),
                    converged,
                    verifies,
                    producer.acked(),
                    producer.failed(),
                    read.read(),
                    read.checked(),
                    (System.nanoTime() - started) / 1e9);
        } finally {
            server.kill();
        }
        assertThat(problems).as("campaign seed %d (log %s)", seed, server.log()).isEmpty();
        int hookHits =
                hits.entrySet().stream()
                        .filter(e -> e.getKey().hook != null)
                        .mapToInt(e -> e.getValue()[1])
                        .sum();
        assertThat(hookHits)
                .as("kills at a named hook, seed %d", seed)
                .isGreaterThanOrEqualTo(KILLS / 4);
        assertThat(converged)
                .as("restarts that caught up, seed %d", seed)
                .isGreaterThanOrEqualTo(KILLS / 4);
    }

    private static Point draw(Random random) {
        int r = random.nextInt(100);
        if (r < 20) {
            return Point.RANDOM_ANYWHERE;
        }
        if (r < 40) {
            return Point.RANDOM_AFTER_CONVERGED;
        }
        if (r < 55) {
            return Point.BEFORE_COMMIT;
        }
        if (r < 70) {
            return Point.AFTER_COMMIT;
        }
        if (r < 82) {
            return Point.RETENTION_BEFORE_TABLE;
        }
        return r < 91 ? Point.MERGE_BEFORE_COMMIT : Point.MERGE_AFTER_COMMIT;
    }

    private static String describe(Map<Point, int[]> hits) {
        StringBuilder b = new StringBuilder();
        hits.forEach(
                (p, n) ->
                        b.append(p).append('=').append(n[0]).append('/').append(n[1]).append(' '));
        return b.toString().strip();
    }

    private static Map<String, String> settings(Path data) {
        Map<String, String> s = new HashMap<>();
        s.put("data.dir", data.toString());
        s.put("schema.registry.listen", "");
        s.put("num.network.threads", "2");
        s.put("segment.bytes", "16384");
        s.put("retention.ms", "-1");
        s.put("retention.check.interval.ms", "500");
        s.put("offload.interval.ms", "200");
        s.put("offload.target.object.bytes", "1048576");
        s.put("offload.merge.enabled", "true");
        s.put("offload.merge.min.age.ms", "3000");
        s.put("iceberg.freshness.target.ms", "2000");
        return s;
    }

    private static void createTopics(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(TOPIC, 2, (short) 1),
                                    new NewTopic(RETAINED, 1, (short) 1)
                                            .configs(Map.of("retention.ms", "4000"))))
                    .all()
                    .get();
        }
    }

    /**
     * Polls the table every 250 ms until {@code deadlineNanos} or the server's exit, checking the
     * safety invariants each time; true as soon as every object the catalog committed before {@code
     * killedAt} (and still holds) is in the table, at least one of them.
     */
    private boolean pollUntil(ServerChild server, Instant killedAt, long deadlineNanos)
            throws InterruptedException {
        while (System.nanoTime() < deadlineNanos && server.isAlive()) {
            try {
                Map<String, ColdObject> objects = objects(TOPIC);
                objects.putAll(objects(RETAINED));
                TableCheck t = check(TOPIC, objects);
                TableCheck r = check(RETAINED, objects);
                safety("while running", t);
                safety("while running", r);
                List<String> owed =
                        objects.values().stream()
                                .filter(o -> o.createdAt().isBefore(killedAt))
                                .map(ColdObject::key)
                                .toList();
                lastOwed = owed.size();
                if (owed.stream()
                        .noneMatch(k -> t.missing().contains(k) || r.missing().contains(k))) {
                    return true;
                }
            } catch (RuntimeException e) {
                // a metadata file replaced under the read, a locked catalog: poll again
            }
            Thread.sleep(250); // the poll interval (the fault's timing is the deadline)
        }
        return false;
    }

    /** Sleeps to {@code deadlineNanos} or the server's exit, checking safety every 250 ms. */
    private void watchUntil(ServerChild server, long deadlineNanos) throws InterruptedException {
        while (System.nanoTime() < deadlineNanos && server.isAlive()) {
            try {
                safety("while running", check(TOPIC));
                safety("while running", check(RETAINED));
            } catch (RuntimeException e) {
                // as above
            }
            Thread.sleep(250);
        }
    }

    private Map<String, ColdObject> objects(String topic) {
        try (Catalog c =
                Catalog.open(
                        "jdbc:sqlite:" + data.resolve("catalog.db"),
                        Map.of(),
                        Catalog.OpenMode.READ_ONLY)) {
            return new HashMap<>(TableCheck.catalogObjects(c, topic));
        }
    }

    private TableCheck check(String topic) {
        return check(topic, objects(topic));
    }

    private TableCheck check(String topic, Map<String, ColdObject> objects) {
        Map<String, ColdObject> mine = new HashMap<>();
        objects.forEach(
                (k, o) -> {
                    if (o.topic().equals(topic)) {
                        mine.put(k, o);
                    }
                });
        return TableCheck.of(topic, reader.read(NAMESPACE, topic), mine, reader);
    }

    private void safety(String when, TableCheck c) {
        for (String s : c.safety()) {
            String p = when + ": " + c.topic() + ": " + s;
            if (!problems.contains(p)) {
                problems.add(p);
            }
        }
    }

    private void verify(String when) {
        InProcessCli.Cli v = InProcessCli.run("verify", "--set", "data.dir=" + data);
        if (v.exit() != 0) {
            problems.add(
                    "tierlog verify " + when + ": exit " + v.exit() + ": " + v.out() + v.err());
        }
    }
}
