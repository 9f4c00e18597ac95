package io.tierlog.itests.faults;

import io.tierlog.cold.testing.FaultInjectingProxy;
import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.engine.ReadOnlyTieredLog;
import io.tierlog.engine.Violation;
import io.tierlog.itests.faults.CampaignSchedule.Fault;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Runs one {@link CampaignSchedule}: a server child JVM (and, for daemon schedules, a {@code
 * tierlog offload} child over the server's log dir with offload off in the server) pointed at an S3
 * proxy ({@link FaultInjectingProxy} in front of the campaign's s3proxy) and at its SQLite catalog
 * in a data dir on tmpfs; a producer running throughout; the faults one after another, each
 * followed by a check that acknowledgements resume (hot produce needs neither S3 nor the catalog,
 * and the server must recover from a full disk without a restart); then a graceful stop, a clean
 * restart, the {@link CampaignChecker} and {@code tierlog verify --deep} (in this JVM). Not
 * thread-safe.
 */
final class CampaignRun {
    static final String TOPIC = "campaign";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration PROGRESS_TIMEOUT = Duration.ofSeconds(45);
    private static final long PROGRESS_RECORDS = 200;

    /** The outcome of one schedule. */
    record Result(
            CampaignSchedule schedule,
            List<String> applied,
            long acked,
            long failedSends,
            CampaignChecker.Counts counts,
            CampaignChecker.Problems problems,
            Path workDir,
            long millis,
            String phases) {
        boolean ok() {
            return problems.isEmpty();
        }
    }

    private final CampaignSchedule schedule;
    private final String classpath;
    private final ColdTierFixture s3;
    private final Path workDir;
    private final Path dataDir;
    private final Optional<String> diskFullSkipReason;
    private final CampaignLedger ledger;
    private final CampaignChecker.Problems problems = new CampaignChecker.Problems();
    private final List<String> applied = new ArrayList<>();
    private FaultInjectingProxy proxy;
    private CampaignProcess server;
    private CampaignProcess daemon;
    private int port;
    private final StringBuilder phases = new StringBuilder();
    private long phaseStart = System.nanoTime();

    /** Notes how long the phase that just ended took (for tuning the campaign's length). */
    private void phase(String name) {
        long now = System.nanoTime();
        phases.append(name).append('=').append((now - phaseStart) / 1_000_000).append("ms ");
        phaseStart = now;
    }

    CampaignRun(
            CampaignSchedule schedule,
            String classpath,
            ColdTierFixture s3,
            Path workDir,
            Path dataDir,
            Optional<String> diskFullSkipReason) {
        this.schedule = schedule;
        this.classpath = classpath;
        this.s3 = s3;
        this.workDir = workDir;
        this.dataDir = dataDir;
        this.diskFullSkipReason = diskFullSkipReason;
        this.ledger = new CampaignLedger(schedule.seed(), schedule.paddingBytes());
    }

    private Map<String, String> s3Settings() {
        Map<String, String> s = new HashMap<>(s3.clientConfig(proxy.endpoint()).asMap());
        s.put("s3.prefix", "c" + Long.toHexString(schedule.seed()));
        s.put("s3.request.timeout.ms", "2000");
        s.put("s3.retry.max.attempts", "3");
        s.put("s3.retry.backoff.ms", "50");
        s.put("s3.retry.backoff.max.ms", "500");
        s.put("data.dir", dataDir.toString());
        s.put("offload.interval.ms", "200");
        s.put("offload.target.object.bytes", Integer.toString(schedule.segmentBytes() * 2));
        s.put("offload.retry.timeout.ms", "2000");
        s.put("offload.retry.backoff.ms", "50");
        s.put("offload.retry.backoff.max.ms", "500");
        return s;
    }

    private Map<String, String> serverSettings() {
        Map<String, String> s = s3Settings();
        s.put("s3.mode", "external");
        s.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        s.put("schema.registry.listen", "");
        s.put("num.network.threads", "2");
        s.put("num.partitions", Integer.toString(schedule.partitions()));
        s.put("segment.bytes", Integer.toString(schedule.segmentBytes()));
        s.put("local.retention.bytes", Long.toString(schedule.localRetentionBytes()));
        s.put("retention.ms", "-1");
        s.put("log.durability", schedule.fsync() ? "fsync" : "page_cache");
        s.put("index.interval.bytes", Integer.toString(schedule.indexIntervalBytes()));
        s.put("file.delete.delay.ms", "500");
        s.put("offload.enabled", Boolean.toString(!schedule.daemonOffload()));
        s.put("cold.cache.bytes", Integer.toString(16 << 20));
        s.put("cold.read.threads", "2");
        s.put("cold.read.chunk.bytes", Integer.toString(1 << 20));
        s.put("cold.metadata.cache.objects", "100");
        return s;
    }

    Result run() throws Exception {
        long started = System.nanoTime();
        Files.createDirectories(workDir);
        Files.createDirectories(dataDir);
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        proxy = FaultInjectingProxy.start(s3.endpoint());
        server =
                CampaignProcess.of(
                        "server",
                        classpath,
                        List.of("serve"),
                        serverSettings(),
                        workDir.resolve("server.log"));
        if (schedule.daemonOffload()) {
            Map<String, String> d = s3Settings();
            d.put("offload.tmp.dir", dataDir.resolve("daemon-tmp").toString());
            daemon =
                    CampaignProcess.of(
                            "offload daemon",
                            classpath,
                            List.of(
                                    "offload",
                                    "--log-dir",
                                    dataDir.resolve("log").toString(),
                                    "--active-segments",
                                    "exclude",
                                    "--progress",
                                    "lines"),
                            d,
                            workDir.resolve("daemon.log"));
        }
        CampaignProducer producer = null;
        CampaignChecker.Counts counts = new CampaignChecker.Counts(0, 0, 0);
        try {
            startServer("initial start");
            createTopic();
            phase("start");
            if (daemon != null) {
                daemon.start();
            }
            producer =
                    new CampaignProducer(
                            bootstrap(),
                            TOPIC,
                            schedule.partitions(),
                            schedule.recordsPerSecond(),
                            ledger);
            producer.start();
            if (awaitAcks(1000, "warm-up")) {
                phase("warm-up");
                for (Fault f : schedule.faults()) {
                    boolean go = apply(f) && awaitAcks(PROGRESS_RECORDS, "after " + f);
                    phase(f.kind().name()); // the fault, its heal and the acks after it
                    if (!go) {
                        break;
                    }
                }
            }
            producer.stop(Duration.ofSeconds(60));
            producer = null;
            phase("drain");
            counts = checkAfterCleanRestart();
        } catch (Exception | AssertionError e) {
            problems.add("schedule aborted", e.toString());
        } finally {
            if (producer != null) {
                try {
                    producer.stop(Duration.ofSeconds(30));
                } catch (AssertionError e) {
                    problems.add("producer crashed", e.getCause().toString());
                }
            }
            if (daemon != null) {
                daemon.kill();
            }
            server.kill();
            proxy.close();
        }
        return new Result(
                schedule,
                List.copyOf(applied),
                ledger.ackedCount(),
                ledger.failedCount(),
                counts,
                problems,
                workDir,
                (System.nanoTime() - started) / 1_000_000,
                phases.toString().strip());
    }

    /**
     * Dumps the campaign's class data sharing archive ({@link CampaignProcess#dumpClassArchive})
     * with a warm-up server under {@code dir}: it starts, gets a topic and a few hundred records
     * (so produce, roll and offload classes are in the archive too), and stops.
     */
    static Optional<Path> dumpClassArchive(String classpath, ColdTierFixture s3, Path dir)
            throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Map<String, String> s = new HashMap<>(s3.clientConfig().asMap());
        s.put("s3.mode", "external");
        s.put("s3.prefix", "warm-up");
        s.put("data.dir", dir.resolve("warm-up").toString());
        s.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        s.put("schema.registry.listen", "");
        s.put("segment.bytes", Integer.toString(16 << 10));
        s.put("offload.interval.ms", "100");
        String bootstrap = "127.0.0.1:" + port;
        return CampaignProcess.dumpClassArchive(
                classpath,
                s,
                port,
                dir.resolve("campaign.jsa"),
                dir.resolve("warm-up.log"),
                () -> warmUp(bootstrap));
    }

    private static void warmUp(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin a = Admin.create(p)) {
            a.createTopics(List.of(new NewTopic("warm-up", 1, (short) 1)))
                    .all()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            System.out.println("campaign: warm-up topic not created: " + e);
            return;
        }
        p.put(org.apache.kafka.clients.producer.ProducerConfig.ACKS_CONFIG, "all");
        try (var producer =
                new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(
                        p,
                        new org.apache.kafka.common.serialization.ByteArraySerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            for (int i = 0; i < 300; i++) {
                producer.send(
                        new org.apache.kafka.clients.producer.ProducerRecord<>(
                                "warm-up", new byte[200]));
            }
            producer.flush();
        }
    }

    private String bootstrap() {
        return "127.0.0.1:" + port;
    }

    private void startServer(String why) throws Exception {
        server.start();
        if (!server.awaitListening(port, START_TIMEOUT)) {
            throw new AssertionError(
                    "server did not listen within "
                            + START_TIMEOUT.toSeconds()
                            + " s ("
                            + why
                            + "; exit "
                            + server.exitStatus()
                            + ")");
        }
    }

    private void createTopic() throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        try (Admin a = Admin.create(p)) {
            a.createTopics(List.of(new NewTopic(TOPIC, schedule.partitions(), (short) 1)))
                    .all()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** Polls until {@code more} further acknowledgements arrived; records a problem if not. */
    private boolean awaitAcks(long more, String when) throws InterruptedException {
        long target = ledger.ackedCount() + more;
        if (Await.atMost(PROGRESS_TIMEOUT, ledger::ackedCount, acked -> acked >= target)
                >= target) {
            return true;
        }
        String exit =
                server.exitStatus().isPresent() ? ", server exited " + server.exitStatus() : "";
        problems.add(
                "produce stalled",
                "fewer than "
                        + more
                        + " acks within "
                        + PROGRESS_TIMEOUT.toSeconds()
                        + " s "
                        + when
                        + exit);
        return false;
    }

    /** Applies one fault and heals it; false when the schedule cannot go on. */
    private boolean apply(Fault f) throws Exception {
        Random r = new Random(f.seed());
        Duration d = Duration.ofMillis(f.durationMs());
        switch (f.kind()) {
            case KILL_SERVER -> {
                server.kill();
                Thread.sleep(d.toMillis()); // the fault's length: the server stays down
                startServer("restart after " + f);
                applied.add(f.toString());
            }
            case TORN_TAIL -> {
                int p = r.nextInt(schedule.partitions());
                if (f.param() == 1) {
                    awaitOffloadedSegment(p);
                }
                server.kill();
                String what = tear(f, p, r);
                startServer("unclean restart after " + f);
                applied.add(f + "[" + what + "]");
            }
            case KILL_DAEMON -> {
                daemon.kill();
                Thread.sleep(d.toMillis());
                daemon.start();
                applied.add(f.toString());
            }
            case S3_DOWN -> {
                proxy.goDown();
                Thread.sleep(d.toMillis());
                proxy.comeUp();
                applied.add(f.toString());
            }
            case S3_SLOW -> {
                proxy.delayAll(Duration.ofMillis(f.param()));
                Thread.sleep(d.toMillis());
                proxy.heal();
                applied.add(f.toString());
            }
            case S3_HANG -> {
                // Held far longer than any client timeout: an endpoint that never answers.
                proxy.delayAll(Duration.ofMinutes(10));
                Thread.sleep(d.toMillis());
                proxy.heal();
                applied.add(f.toString());
            }
            case S3_5XX -> {
                if (f.param() == 0) {
                    proxy.failAfter(0, 503);
                } else {
                    proxy.failEvery(f.param(), 500);
                }
                Thread.sleep(d.toMillis());
                proxy.heal();
                applied.add(f.toString());
            }
            case CATALOG_LOCK -> {
                Path db = dataDir.resolve("catalog.db");
                Connection lock;
                try {
                    lock = CampaignStorageFaults.lockCatalog(db);
                } catch (java.sql.SQLException e) {
                    applied.add(f + "[not applied: " + e.getMessage() + "]");
                    return true;
                }
                Thread.sleep(d.toMillis());
                CampaignStorageFaults.unlockCatalog(lock);
                applied.add(f.toString());
            }
            case DISK_FULL -> {
                if (diskFullSkipReason.isPresent()) {
                    applied.add(f + "[skipped: " + diskFullSkipReason.get() + "]");
                    return true;
                }
                Path ballast = dataDir.getParent().resolve("ballast-" + Long.toHexString(f.seed()));
                long bytes = CampaignStorageFaults.fillDisk(ballast);
                // Half of the time the disk is left almost full (a few pages free), so that the
                // server runs out of space in the middle of an append, a roll or an index page.
                long free = r.nextBoolean() ? 0 : (4L << 10) * (1 + r.nextInt(16));
                if (free > 0) {
                    try (java.nio.channels.FileChannel ch =
                            java.nio.channels.FileChannel.open(
                                    ballast, java.nio.file.StandardOpenOption.WRITE)) {
                        ch.truncate(Math.max(0, bytes - free));
                    }
                }
                Thread.sleep(d.toMillis());
                Files.deleteIfExists(ballast);
                applied.add(
                        f + "[" + (bytes >> 10) + " KiB ballast, " + (free >> 10) + " KiB left]");
            }
        }
        if (!server.isAlive()) {
            problems.add("server died", "after " + f + " (exit " + server.exitStatus() + ")");
            return false;
        }
        if (daemon != null && !daemon.isAlive()) {
            problems.add(
                    "offload daemon died", "after " + f + " (exit " + daemon.exitStatus() + ")");
            return false;
        }
        return true;
    }

    /**
     * Polls (deadline 15 s) until partition {@code p} has a closed segment on disk that the catalog
     * has committed entirely, so that the kill can catch one for an offloaded tear; local retention
     * deletes such segments soon, so this makes the variant likely, not certain (the tear falls
     * back to the active segment and says so).
     */
    private void awaitOffloadedSegment(int p) throws IOException, InterruptedException {
        Path dir = dataDir.resolve("log").resolve(TOPIC + "-" + p);
        Await.atMost(
                Duration.ofSeconds(15),
                () -> {
                    Optional<Long> hw =
                            CampaignStorageFaults.coldHighWatermark(
                                    dataDir.resolve("catalog.db"), TOPIC, p);
                    if (hw.isPresent() && Files.isDirectory(dir)) {
                        List<Path> segs = CampaignStorageFaults.segments(dir);
                        for (int i = 0; i + 1 < segs.size(); i++) {
                            String next =
                                    segs.get(i + 1).getFileName().toString().replace(".log", "");
                            if (Long.parseLong(next) <= hw.get()) {
                                return true;
                            }
                        }
                    }
                    return false;
                },
                offloadedSegment -> offloadedSegment);
    }

    /** The tear of a TORN_TAIL fault, on a random partition, while the server is down. */
    private String tear(Fault f, int p, Random r) throws IOException {
        Path dir = dataDir.resolve("log").resolve(TOPIC + "-" + p);
        if (!Files.isDirectory(dir)) {
            return "no folder for partition " + p;
        }
        if (f.param() == 1) {
            Optional<Long> hw =
                    CampaignStorageFaults.coldHighWatermark(
                            dataDir.resolve("catalog.db"), TOPIC, p);
            if (hw.isPresent()) {
                Optional<CampaignStorageFaults.Tear> t =
                        CampaignStorageFaults.tearOffloaded(
                                dataDir.resolve("log"), TOPIC, p, hw.get(), r);
                if (t.isPresent()) {
                    // Not excused: the cold tier holds these offsets and must serve them.
                    return "p" + p + " " + t.get().description();
                }
            }
        }
        long chosenAt = System.nanoTime();
        long highest = ledger.highestAcked(p);
        CampaignStorageFaults.Tear t = CampaignStorageFaults.tearActive(dir, highest, r);
        if (t.destroysOffsets()) {
            ledger.tore(p, t.fromOffset(), t.toOffset(), chosenAt);
        }
        return "p" + p + (f.param() == 1 ? " (no offloaded candidate) " : " ") + t.description();
    }

    /** Heals everything, restarts cleanly, reads everything back and runs verify --deep. */
    private CampaignChecker.Counts checkAfterCleanRestart() throws Exception {
        proxy.heal();
        proxy.comeUp();
        if (daemon != null && !daemon.stop(Duration.ofSeconds(30))) {
            problems.add("offload daemon did not stop on SIGTERM", "within 30 s");
        }
        if (!server.stop(Duration.ofSeconds(30))) {
            problems.add("server did not stop on SIGTERM", "within 30 s (killed)");
        }
        phase("stop");
        startServer("clean restart for the check");
        phase("restart");
        CampaignChecker.Counts counts =
                new CampaignChecker(ledger, TOPIC, schedule.partitions())
                        .check(bootstrap(), Duration.ofSeconds(120), problems);
        phase("read");
        if (!server.stop(Duration.ofSeconds(30))) {
            problems.add("server did not stop on SIGTERM", "after the check (killed)");
        }
        verifyDeep();
        phase("verify");
        return counts;
    }

    /**
     * What {@code tierlog verify --deep} does ({@link ReadOnlyTieredLog#verify} over the same
     * settings), in this JVM: a child JVM's start was a third of a schedule's time. The server is
     * stopped; the report goes to {@code verify.log} like the command's output.
     */
    private void verifyDeep() throws IOException {
        List<String> lines = new ArrayList<>();
        List<Violation> violations;
        try (ReadOnlyTieredLog log = ReadOnlyTieredLog.open(Config.of(s3Settings()))) {
            violations = log.verify(true);
            violations.forEach(v -> lines.add("VIOLATION " + v));
            log.notes().forEach(n -> lines.add("NOTE " + n));
            lines.add(
                    violations.isEmpty()
                            ? "verify: OK"
                            : "verify: " + violations.size() + " violation(s)");
        } catch (IOException | RuntimeException e) {
            lines.add("verify: could not run: " + e);
            violations = null;
        }
        Files.write(workDir.resolve("verify.log"), lines);
        if (violations == null || !violations.isEmpty()) {
            List<String> shown =
                    lines.stream()
                            .filter(l -> l.startsWith("VIOLATION") || l.startsWith("verify:"))
                            .toList();
            problems.add(
                    "verify --deep failed",
                    String.join(" / ", shown.subList(0, Math.min(4, shown.size()))));
        }
    }
}
