package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.EmbeddedS3Server;
import io.tierlog.compactor.testing.ChildClasspath;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierlog offload} without {@code --once}, as a daemon in a child JVM: it keeps offloading
 * segments as they close and stops cleanly on SIGTERM.
 */
class OffloadDaemonIT {
    static final TopicPartition TP = new TopicPartition("daemon", 0);

    @TempDir Path dir;

    @Test
    void theDaemonFollowsTheLogAsSegmentsCloseAndStopsOnSigterm() throws Exception {
        SegmentFiles log = new SegmentFiles(dir.resolve("log"), 11);
        log.append(TP, 5, 10, 50);
        log.roll(TP);
        log.append(TP, 1, 1, 1); // active
        String catalogUrl = "jdbc:sqlite:" + dir.resolve("catalog.db");
        try (EmbeddedS3Server s3 = EmbeddedS3Server.start(dir.resolve("s3"));
                Catalog catalog = Catalog.open(catalogUrl)) {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-Xmx256m");
            cmd.add("-cp");
            cmd.add(ChildClasspath.snapshot(dir.resolve("classpath")));
            cmd.add("io.tierlog.compactor.cli.OffloadCommand");
            cmd.add("--log-dir=" + log.dir());
            cmd.add("--progress=lines");
            cmd.add("--active-segments=exclude");
            s3.clientConfig().asMap().forEach((k, v) -> cmd.add("--set=" + k + "=" + v));
            cmd.add("--set=catalog.url=" + catalogUrl);
            cmd.add("--set=offload.interval.ms=100");
            cmd.add("--set=offload.tmp.dir=" + dir.resolve("tmp"));
            cmd.add("--set=data.dir=" + dir.resolve("unused"));
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("daemon.out").toFile())
                            .start();
            try {
                awaitColdHighWatermark(catalog, 50, p);
                log.append(TP, 5, 10, 50); // the active segment grows, then rolls
                log.roll(TP);
                log.append(TP, 1, 1, 1);
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

    private void awaitColdHighWatermark(Catalog catalog, long hw, Process p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (catalog.topic(TP.topic()).isEmpty()
                || catalog.partitionState(TP.topic(), TP.partition()).coldHighWatermark() < hw) {
            assertThat(p.isAlive())
                    .as("daemon alive: %s", Files.readString(dir.resolve("daemon.out")))
                    .isTrue();
            assertThat(System.nanoTime())
                    .as("cold high watermark %d reached", hw)
                    .isLessThan(deadline);
            Thread.sleep(50); // polling the catalog with a deadline
        }
    }
}
