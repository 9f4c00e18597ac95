package io.tierlog.itests.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectStore;
import io.tierlog.common.Time;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.CompactorOptions;
import io.tierlog.compactor.testing.ChildClasspath;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.SegmentFiles;
import io.tierlog.itests.testing.InProcessCli;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash safety of cold compaction: a child JVM runs compaction passes over a compacted topic's cold
 * objects (s3proxy over HTTP, SQLite catalog file) and is killed with SIGKILL around its
 * replace-commits (after a random number of them plus a few milliseconds, or a random time into the
 * run: mapping, rewriting, uploading, committing) at least {@code tierlog.crash.kills} times
 * (default 30), new keyed segments with updates and tombstones being offloaded between runs ({@code
 * delete.retention.ms=0}, so tombstones are removed in later passes, under kills too). After every
 * kill: the catalog is contiguous over the whole offloaded range, every referenced object is in the
 * store with its size, every record a reader gets is the one written at its offset, the latest
 * value of every key is there, and a key whose latest record is a tombstone never shows an older
 * value (no run lost a tombstone while an older run kept the value); {@code tierlog verify} passes.
 * A last unkilled run leaves exactly the latest value of every live key.
 */
class ColdCompactionKillIT {
    private static final Logger LOG = LoggerFactory.getLogger(ColdCompactionKillIT.class);
    private static final String TOPIC = "table";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int KEYS = 25;

    @TempDir Path dir;

    /** offset -> "key=value" (value "null" for a tombstone), as written. */
    private final Map<Long, String> written = new HashMap<>();

    private final Map<String, Long> latestOffset = new TreeMap<>();
    private final Map<String, String> latestValue = new TreeMap<>();

    @Test
    void killedAroundReplaceCommitsCompactionNeverLosesALatestValueNorResurrectsADeletedKey()
            throws Exception {
        int wantedKills = Integer.getInteger("tierlog.crash.kills", 30);
        long seed = Long.getLong("tierlog.crash.seed", System.nanoTime());
        LOG.info(
                "cold compaction kill test seed {} (rerun with -Dtierlog.crash.seed={})",
                seed,
                seed);
        Random random = new Random(seed);
        SegmentFiles log = new SegmentFiles(dir.resolve("log"), seed);
        try (ColdTierFixture cold = ColdTierFixture.start(dir)) {
            cold.catalog()
                    .createTopic(
                            TOPIC,
                            1,
                            Map.of(
                                    "cleanup.policy", "compact",
                                    "min.cleanable.dirty.ratio", "0.01",
                                    "delete.retention.ms", "0"));
            addAndOffload(log, cold, random, 6);
            int kills = 0;
            int runs = 0;
            while (kills < wantedKills) {
                assertThat(runs)
                        .as("runs without reaching %d kills", wantedKills)
                        .isLessThan(wantedKills * 3);
                runs++;
                addAndOffload(log, cold, random, 1 + random.nextInt(2));
                Child child = Child.start(dir, cold, runs);
                boolean killed =
                        random.nextInt(8) == 0
                                ? child.killAfterMillis(100 + random.nextInt(2500))
                                : child.killAfterReplaces(
                                        1 + random.nextInt(2), random.nextInt(25));
                if (killed) {
                    kills++;
                } else {
                    assertThat(child.exitCode()).as(child.stderrTail()).isZero();
                }
                assertInvariants(cold, log, false);
                if (kills % 10 == 0 && killed) {
                    assertVerifyPasses(cold);
                }
            }
            LOG.info("{} kills in {} runs", kills, runs);
            Child last = Child.start(dir, cold, runs + 1);
            assertThat(last.waitForExit(120)).as(last.stderrTail()).isZero();
            assertInvariants(cold, log, true);
            assertVerifyPasses(cold);
        }
    }

    private void addAndOffload(SegmentFiles log, ColdTierFixture cold, Random random, int segments)
            throws Exception {
        for (int s = 0; s < segments; s++) {
            for (int b = 0; b < 6; b++) {
                String[] kv = new String[10];
                long base = log.nextOffset(TP);
                for (int i = 0; i < 5; i++) {
                    String key = "k" + random.nextInt(KEYS);
                    String value = random.nextInt(6) == 0 ? null : "v" + (base + i);
                    kv[2 * i] = key;
                    kv[2 * i + 1] = value;
                    written.put(base + i, key + "=" + value);
                    latestOffset.put(key, base + i);
                    latestValue.put(key, value);
                }
                log.appendKeyed(TP, b % 3 == 0 ? CompressionType.LZ4 : CompressionType.NONE, kv);
            }
            log.roll(TP);
        }
        Map<String, String> settings = new HashMap<>();
        settings.put(CompactorOptions.OFFLOAD_TMP_DIR.key(), dir.resolve("tmp-parent").toString());
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "1KiB");
        settings.put(CompactorOptions.COLD_CLEANER_ENABLE.key(), "false");
        try (Compactor c = cold.compactor(log, Optional.of(log.dir()), settings, Time.SYSTEM)) {
            assertThat(c.runOnce().failedPartitions()).isZero();
        }
    }

    private void assertInvariants(ColdTierFixture cold, SegmentFiles log, boolean finished)
            throws IOException {
        Catalog catalog = cold.catalog();
        ObjectStore store = cold.store();
        Map<String, Long> stored = new HashMap<>();
        for (ObjectInfo o : store.list("")) {
            stored.put(o.key(), o.size());
        }
        long next = 0;
        for (ColdObject o : catalog.objects(TOPIC, 0)) {
            assertThat(o.firstOffset()).as("contiguity at %s", o.key()).isEqualTo(next);
            assertThat(stored.get(o.key()))
                    .as("referenced object %s is stored", o.key())
                    .isEqualTo(o.sizeInBytes());
            next = o.nextOffset();
        }
        assertThat(next).as("the whole offloaded range").isEqualTo(log.nextOffset(TP));
        Map<String, List<Long>> byKey = new TreeMap<>();
        long last = -1;
        for (RecordBatch b : cold.readBack(TOPIC, 0)) {
            for (Record r : b) {
                assertThat(r.offset()).isGreaterThan(last);
                last = r.offset();
                String kv = str(r.key()) + "=" + str(r.value());
                assertThat(kv).as("record at %d", r.offset()).isEqualTo(written.get(r.offset()));
                byKey.computeIfAbsent(str(r.key()), k -> new ArrayList<>()).add(r.offset());
            }
        }
        for (Map.Entry<String, Long> e : latestOffset.entrySet()) {
            String key = e.getKey();
            long at = e.getValue();
            List<Long> seen = byKey.getOrDefault(key, List.of());
            if (latestValue.get(key) != null) {
                assertThat(seen).as("latest value of %s", key).contains(at);
                if (finished) {
                    assertThat(seen).as("only the latest of %s", key).containsExactly(at);
                }
            } else if (!seen.contains(at)) {
                assertThat(seen).as("%s was deleted: no older value may come back", key).isEmpty();
            } else if (finished) {
                assertThat(seen).as("tombstone of %s past its horizon", key).isEmpty();
            }
        }
    }

    private static void assertVerifyPasses(ColdTierFixture cold) {
        List<String> args = new ArrayList<>();
        args.add("verify");
        args.add("--set");
        Path data = cold.dir().resolve("verify-data");
        try {
            Files.createDirectories(data.resolve("log")); // no hot tier: the cold tier only
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        args.add("data.dir=" + data);
        args.add("--set"); // the compactor alone made this cold tier: it has no Iceberg tables
        args.add("iceberg.enabled=false");
        args.add("--set");
        args.add("catalog.url=" + cold.catalogUrl());
        cold.clientConfig()
                .asMap()
                .forEach(
                        (k, v) -> {
                            args.add("--set");
                            args.add(k + "=" + v);
                        });
        InProcessCli.Cli v = InProcessCli.run(args.toArray(String[]::new));
        assertThat(v.exit()).as("tierlog verify: %s %s", v.out(), v.err()).isZero();
    }

    private static String str(ByteBuffer b) {
        if (b == null) {
            return "null";
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    /** One {@link ColdCompactionChild} JVM, stdout read line by line. */
    private static final class Child {
        private static String classpath;
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
                                    // killed: that is the point
                                }
                                lines.add("<eof>");
                            },
                            "child-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        static Child start(Path dir, ColdTierFixture cold, int run) throws IOException {
            synchronized (Child.class) {
                if (classpath == null) {
                    classpath = ChildClasspath.snapshot(dir.resolve("classpath"));
                }
            }
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-Xmx256m");
            cmd.add("-XX:TieredStopAtLevel=1");
            cmd.add("-XX:+UseSerialGC");
            cmd.add("-cp");
            cmd.add(classpath);
            cmd.add("-Xshare:auto");
            cmd.add(ColdCompactionChild.class.getName());
            Map<String, String> sets = new TreeMap<>(cold.clientConfig().asMap());
            sets.put("catalog.url", cold.catalogUrl());
            sets.put("offload.target.object.bytes", "6KiB");
            sets.put("offload.tmp.dir", dir.resolve("tmp").toString());
            sets.put("offload.retry.backoff.ms", "20ms");
            sets.forEach((k, v) -> cmd.add(k + "=" + v));
            Path err = dir.resolve("child-" + run + ".err");
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            return new Child(p, err);
        }

        /**
         * Kills {@code extraMs} after the {@code n}th replace-commit starts; false if it exited.
         */
        boolean killAfterReplaces(int n, int extraMs) throws Exception {
            int seen = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (seen < n) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line == null) {
                    assertThat(System.nanoTime()).as("child made no progress").isLessThan(deadline);
                    continue;
                }
                if (line.equals("<eof>")) {
                    process.waitFor();
                    return false;
                }
                if (line.startsWith("replacing")) {
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

        int waitForExit(long seconds) throws Exception {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("child did not finish: " + stderrTail());
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
