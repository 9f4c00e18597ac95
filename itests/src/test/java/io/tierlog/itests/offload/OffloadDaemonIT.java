package io.tierlog.itests.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.testing.FaultInjectingProxy;
import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.compactor.testing.ChildClasspath;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.SegmentFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierlog offload} without {@code --once}, as a daemon in a child JVM: it keeps offloading
 * segments as they close, outlives S3 being down (at start and while running) and stops cleanly on
 * SIGTERM.
 */
class OffloadDaemonIT {
    static final TopicPartition TP = new TopicPartition("daemon", 0);

    @TempDir Path dir;

    @Test
    void theDaemonFollowsTheLogAsSegmentsCloseAndStopsOnSigterm() throws Exception {
        SegmentFiles log = new SegmentFiles(dir.resolve("log"), 11);
        closeAndStartSegment(log);
        try (ColdTierFixture cold = ColdTierFixture.start(dir)) {
            Catalog catalog = cold.catalog();
            Process p = startDaemon(daemonCommand(log, cold.catalogUrl(), cold.clientConfig()));
            try {
                awaitColdHighWatermark(catalog, 50, p);
                closeAndStartSegment(log);
                awaitColdHighWatermark(catalog, 101, p);
            } finally {
                p.destroy(); // SIGTERM: the shutdown hook stops the loop
            }
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
            try (var tmp = Files.list(dir.resolve("tmp"))) {
                assertThat(tmp.toList()).isEmpty();
            }
        }
    }

    /**
     * Issue 16 (campaign seed 5844681916471000884): the daemon's first orphan sweep LISTs the
     * bucket; with S3 down that threw out of the command and the daemon exited with status 1. It
     * must instead warn, back off, and offload everything once S3 answers again, also after a
     * second outage while it runs.
     */
    @Test
    void theDaemonOutlivesS3DownAtStartAndWhileRunningAndCatchesUp() throws Exception {
        SegmentFiles log = new SegmentFiles(dir.resolve("log"), 11);
        closeAndStartSegment(log);
        try (ColdTierFixture cold = ColdTierFixture.start(dir)) {
            Catalog catalog = cold.catalog();
            FaultInjectingProxy proxy = cold.proxy();
            proxy.goDown(); // connections refused: S3 is unreachable when the daemon starts
            List<String> cmd =
                    daemonCommand(log, cold.catalogUrl(), cold.clientConfig(proxy.endpoint()));
            cmd.add("--set=s3.request.timeout.ms=1000");
            cmd.add("--set=s3.retry.max.attempts=2");
            cmd.add("--set=offload.retry.backoff.ms=50");
            cmd.add("--set=offload.retry.backoff.max.ms=500");
            cmd.add("--set=offload.retry.timeout.ms=1000");
            cmd.add("--set=offload.sweep.interval.ms=1000");
            Process p = startDaemon(cmd);
            Path out = dir.resolve("daemon.out");
            try {
                awaitOutput(out, "orphan sweep failed", 1, p);
                awaitOutput(out, "offload pass failed", 1, p);
                assertThat(p.isAlive())
                        .as("alive with S3 down: %s", Files.readString(out))
                        .isTrue();
                proxy.comeUp();
                awaitColdHighWatermark(catalog, 50, p);

                proxy.goDown(); // a second outage while it runs
                closeAndStartSegment(log);
                awaitOutput(out, "offload pass failed", 2, p); // a new outage, a new WARN
                assertThat(p.isAlive()).as("alive: %s", Files.readString(out)).isTrue();
                proxy.comeUp();
                awaitColdHighWatermark(catalog, 101, p);
            } finally {
                p.destroy();
            }
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
            String text = Files.readString(out);
            assertThat(text).contains("succeeded again after");
            // Rate-limited: one WARN per outage and activity, not one per retry.
            assertThat(count(text, "orphan sweep failed")).isLessThanOrEqualTo(2);
            assertThat(count(text, "offload pass failed")).isEqualTo(2);
        }
    }

    /** The daemon's process, its stdout and stderr in {@code daemon.out}. */
    private Process startDaemon(List<String> cmd) throws IOException {
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("daemon.out").toFile())
                .start();
    }

    /** {@code offload} without {@code --once} on {@code log}, reaching S3 with {@code s3}. */
    private List<String> daemonCommand(SegmentFiles log, String catalogUrl, Config s3)
            throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(ChildClasspath.snapshot(dir.resolve("classpath")));
        cmd.add("io.tierlog.server.cli.OffloadCommand");
        cmd.add("--log-dir=" + log.dir());
        cmd.add("--progress=lines");
        cmd.add("--active-segments=exclude");
        cmd.add("--set=catalog.url=" + catalogUrl);
        cmd.add("--set=offload.interval.ms=100");
        cmd.add("--set=offload.tmp.dir=" + dir.resolve("tmp"));
        cmd.add("--set=data.dir=" + dir.resolve("unused"));
        s3.asMap().forEach((k, v) -> cmd.add("--set=" + k + "=" + v));
        return cmd;
    }

    /** The active segment grows by 50 offsets and rolls; a new active segment gets 1 offset. */
    private static void closeAndStartSegment(SegmentFiles log) throws IOException {
        log.append(TP, 5, 10, 50);
        log.roll(TP);
        log.append(TP, 1, 1, 1);
    }

    private static int count(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    private void awaitOutput(Path out, String text, int times, Process p) throws Exception {
        Await.until(
                times + " times '" + text + "' in the daemon's output",
                () -> {
                    assertThat(p.isAlive()).as("daemon alive: %s", Files.readString(out)).isTrue();
                    return count(Files.readString(out), text) >= times;
                },
                Duration.ofSeconds(60));
    }

    private void awaitColdHighWatermark(Catalog catalog, long hw, Process p) throws Exception {
        Await.until(
                "cold high watermark " + hw,
                () -> {
                    assertThat(p.isAlive())
                            .as("daemon alive: %s", Files.readString(dir.resolve("daemon.out")))
                            .isTrue();
                    return catalog.topic(TP.topic()).isEmpty()
                            ? -1L
                            : catalog.partitionState(TP.topic(), TP.partition())
                                    .coldHighWatermark();
                },
                w -> w >= hw,
                Duration.ofSeconds(90));
    }
}
