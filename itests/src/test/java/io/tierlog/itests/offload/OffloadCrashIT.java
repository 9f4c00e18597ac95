package io.tierlog.itests.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectStore;
import io.tierlog.common.MockTime;
import io.tierlog.compactor.OrphanSweeper;
import io.tierlog.compactor.testing.ChildClasspath;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.SegmentFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash safety of the offload daemon: {@code tierlog offload --once} runs in a child JVM that is
 * killed with SIGKILL at random points (after a random number of committed objects, or a random
 * time into the run, which lands anywhere: writing Parquet, uploading, between upload and commit,
 * committing) at least {@code tierlog.crash.kills} times (default 30), with new segments arriving
 * between runs. After every kill the catalog is contiguous from offset 0, never beyond the closed
 * segments, and every committed object exists in the store. Finally an unkilled run offloads the
 * rest: every offset is in the cold tier exactly once and equal to the source, and the orphans the
 * kills left are swept.
 */
class OffloadCrashIT {
    private static final Logger LOG = LoggerFactory.getLogger(OffloadCrashIT.class);
    private static final List<TopicPartition> PARTITIONS =
            List.of(
                    new TopicPartition("crash", 0),
                    new TopicPartition("crash", 1),
                    new TopicPartition("other", 0));

    @TempDir Path dir;

    @Test
    void killedAtRandomPointsTheDaemonNeverLosesNorDuplicatesAnOffsetAndOrphansAreSwept()
            throws Exception {
        int wantedKills = Integer.getInteger("tierlog.crash.kills", 30);
        long seed = Long.getLong("tierlog.crash.seed", System.nanoTime());
        LOG.info("crash test seed {} (rerun with -Dtierlog.crash.seed={})", seed, seed);
        Random random = new Random(seed);
        SegmentFiles log = new SegmentFiles(dir.resolve("log"), seed);
        for (TopicPartition tp : PARTITIONS) {
            addSegments(log, tp, 8);
        }
        try (ColdTierFixture cold = ColdTierFixture.start(dir)) {
            ObjectStore store = cold.store();
            Catalog catalog = cold.catalog();
            int kills = 0;
            int runs = 0;
            while (kills < wantedKills) {
                assertThat(runs)
                        .as("runs without reaching %d kills", wantedKills)
                        .isLessThan(wantedKills * 3);
                runs++;
                TopicPartition grow = PARTITIONS.get(random.nextInt(PARTITIONS.size()));
                addSegments(log, grow, 1 + random.nextInt(4));
                Child child = Child.start(dir, log.dir(), cold, runs);
                boolean killed;
                if (random.nextBoolean()) {
                    killed = child.killAfterCommits(random.nextInt(4), random.nextInt(400));
                } else {
                    killed = child.killAfterMillis(300 + random.nextInt(2500));
                }
                if (killed) {
                    kills++;
                } else {
                    assertThat(child.exitCode()).as(child.stderrTail()).isZero();
                }
                assertInvariants(log, catalog, store);
            }
            LOG.info("{} kills in {} runs", kills, runs);

            Child last = Child.start(dir, log.dir(), cold, runs + 1, "include");
            assertThat(last.waitForExit(Duration.ofMinutes(3))).as(last.stderrTail()).isZero();
            assertInvariants(log, catalog, store);
            for (TopicPartition tp : PARTITIONS) {
                log.assertOffloadedOnce(tp, catalog, store);
            }

            Set<String> referenced = new HashSet<>(catalog.allObjectKeys());
            // cold objects only: the bucket also holds the Iceberg tables' metadata files
            List<ObjectInfo> objects =
                    store.list("").stream()
                            .filter(o -> io.tierlog.cold.ObjectKeys.parse(o.key()).isPresent())
                            .toList();
            long orphans = objects.stream().filter(o -> !referenced.contains(o.key())).count();
            LOG.info("{} orphans left by {} kills", orphans, kills);
            MockTime later =
                    new MockTime(System.currentTimeMillis() + Duration.ofHours(2).toMillis());
            OrphanSweeper.SweepResult swept =
                    new OrphanSweeper(catalog, store, "", Duration.ofHours(1), later).sweep();
            assertThat(swept.deleted()).isEqualTo(orphans);
            assertThat(
                            store.list("").stream()
                                    .map(ObjectInfo::key)
                                    .filter(k -> io.tierlog.cold.ObjectKeys.parse(k).isPresent())
                                    .sorted()
                                    .toList())
                    .isEqualTo(referenced.stream().sorted().toList());
            try (var tmp = Files.list(dir.resolve("tmp"))) {
                assertThat(tmp.toList()).as("temp files after a clean run").isEmpty();
            }
        }
    }

    private static void addSegments(SegmentFiles log, TopicPartition tp, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            log.append(tp, 6, 20, 60);
            log.roll(tp);
        }
    }

    private static void assertInvariants(SegmentFiles log, Catalog catalog, ObjectStore store)
            throws IOException {
        Set<String> stored = new HashSet<>();
        store.list("").forEach(o -> stored.add(o.key()));
        for (TopicPartition tp : PARTITIONS) {
            if (catalog.topic(tp.topic()).isEmpty()) {
                continue;
            }
            long next = 0;
            for (ColdObject o : catalog.objects(tp.topic(), tp.partition())) {
                assertThat(o.firstOffset())
                        .as("contiguity of %s at %s", tp, o.key())
                        .isEqualTo(next);
                assertThat(stored).as("committed object exists").contains(o.key());
                next = o.nextOffset();
            }
            assertThat(next)
                    .as("never beyond the closed segments")
                    .isLessThanOrEqualTo(log.nextOffset(tp));
        }
    }

    /** One {@code OffloadCommand --once} in a child JVM, stdout read line by line. */
    private static final class Child {
        private final Process process;
        private final Path stderr;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        private Child(Process process, Path stderr) {
            this.process = process;
            this.stderr = stderr;
            Thread reader =
                    new Thread(
                            () -> {
                                try (BufferedReader r =
                                        new BufferedReader(
                                                new InputStreamReader(
                                                        process.getInputStream(),
                                                        StandardCharsets.UTF_8))) {
                                    String line;
                                    while ((line = r.readLine()) != null) {
                                        lines.add(line);
                                    }
                                } catch (IOException e) {
                                    // the process died: that is the point
                                }
                                lines.add("<eof>");
                            },
                            "child-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        private static String classpath;

        static synchronized String classpath(Path dir) throws IOException {
            if (classpath == null) {
                classpath = ChildClasspath.snapshot(dir.resolve("classpath"));
            }
            return classpath;
        }

        static Child start(Path dir, Path logDir, ColdTierFixture cold, int run)
                throws IOException {
            return start(dir, logDir, cold, run, "exclude");
        }

        /** {@code activeSegments}: "include" once the writer (the fixture) has stopped. */
        static Child start(
                Path dir, Path logDir, ColdTierFixture cold, int run, String activeSegments)
                throws IOException {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = new ArrayList<>();
            cmd.add(java);
            cmd.add("-Xmx256m");
            cmd.add("-XX:TieredStopAtLevel=1");
            cmd.add("-XX:+UseSerialGC");
            cmd.add("-cp");
            cmd.add(classpath(dir));
            cmd.add("io.tierlog.server.cli.OffloadCommand");
            cmd.add("--log-dir=" + logDir);
            cmd.add("--once");
            cmd.add("--active-segments=" + activeSegments);
            cmd.add("--progress=lines");
            Map<String, String> sets = new java.util.TreeMap<>(cold.clientConfig().asMap());
            sets.put("catalog.url", cold.catalogUrl());
            sets.put("offload.target.object.bytes", "12KiB");
            sets.put("offload.tmp.dir", dir.resolve("tmp").toString());
            sets.put("offload.retry.backoff.ms", "20ms");
            sets.put("data.dir", dir.resolve("unused-data").toString());
            sets.forEach((k, v) -> cmd.add("--set=" + k + "=" + v));
            Path err = dir.resolve("child-" + run + ".err");
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectError(err.toFile())
                            .redirectInput(ProcessBuilder.Redirect.PIPE)
                            .start();
            return new Child(p, err);
        }

        /**
         * Kills after {@code commits} committed objects plus {@code extraMs}; false if it exited
         * first.
         */
        boolean killAfterCommits(int commits, int extraMs) throws Exception {
            int seen = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (seen < commits || commits == 0 && seen == 0) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line == null) {
                    assertThat(System.nanoTime()).as("child made no progress").isLessThan(deadline);
                    continue;
                }
                if (line.equals("<eof>")) {
                    process.waitFor();
                    return false;
                }
                if (line.startsWith("committed ") || commits == 0 && line.startsWith("backlog")) {
                    seen++;
                }
            }
            return killAfterMillis(extraMs);
        }

        /** Kills {@code ms} from now unless it exits first; true if it was killed. */
        boolean killAfterMillis(long ms) throws Exception {
            if (process.waitFor(ms, TimeUnit.MILLISECONDS)) {
                return false;
            }
            process.destroyForcibly(); // SIGKILL
            process.waitFor();
            return true;
        }

        int waitForExit(Duration timeout) throws Exception {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(
                        "child did not finish in " + timeout + ": " + stderrTail());
            }
            return process.exitValue();
        }

        int exitCode() throws InterruptedException {
            return process.waitFor();
        }

        String stderrTail() {
            try {
                List<String> all = Files.readAllLines(stderr);
                return String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
            } catch (IOException e) {
                return "<no stderr: " + e + ">";
            }
        }
    }
}
