package io.tierlog.bench.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harnesses of {@code bench/side-by-side.sh} and {@code bench/group-bench.sh} run once, tiny,
 * against a real Apache Kafka 4.4.0 broker and a real tierlog server, both started by the harness's
 * own launchers ({@link KafkaServer}, {@link TierlogServer}) as child processes, so a harness or
 * launcher that no longer works fails {@code mvn verify}. The two harnesses share the servers
 * (starting Kafka is most of the cost): one 1 KiB workload of 2,000 records without warm-up through
 * {@code ProducerPerformance} and {@link TailConsumer} child JVMs, then one group pass of 2 joins
 * and 1 s commit phases from 2 members. The figures are printed and discarded.
 */
class SideBySideSmokeIT {
    @TempDir Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void sideBySideAndGroupBenchRunOnceAgainstKafkaAndTierlog() throws Exception {
        Path launcher = tierlogLauncher(dir);
        Path runDir = dir.resolve("run-0");
        Files.createDirectories(runDir);
        try (ServerUnderTest kafka = KafkaServer.start(runDir.resolve("kafka"));
                ServerUnderTest tierlog =
                        TierlogServer.start(launcher, runDir.resolve("tierlog"), List.of())) {
            Map<String, Map<String, List<SideBySide.Figures>>> serve = new LinkedHashMap<>();
            SideBySide.runOnce(
                    List.of(kafka, tierlog),
                    new String[] {"kafka", "tierlog"},
                    null,
                    List.of(new SideBySide.Workload("smoke 1 KiB", 2_000, 1024, "none")),
                    runDir,
                    0,
                    serve);
            SideBySide.report(serve, 1);
            assertThat(serve.get("smoke 1 KiB")).containsOnlyKeys("kafka", "tierlog");

            Map<String, List<GroupBench.Figures>> groups = new LinkedHashMap<>();
            GroupBench.runOnce(List.of(kafka, tierlog), 0, 2, 1, 2, false, groups);
            GroupBench.report(groups, 1, 2);
            assertThat(groups).containsOnlyKeys("kafka", "tierlog");
        }
    }

    /**
     * A launcher like {@code bin/tierlog} on this JVM's class path (which holds the server module
     * and its dependencies): the harness {@code exec}s it, so the child's pid is the server's.
     */
    static Path tierlogLauncher(Path dir) throws Exception {
        Path launcher = dir.resolve("tierlog");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Files.writeString(
                launcher,
                String.join(
                        "\n",
                        "#!/usr/bin/env bash",
                        "exec '"
                                + java
                                + "' -Xms256m -Xmx512m -XX:+UseG1GC -cp '"
                                + System.getProperty("java.class.path")
                                + "' io.tierlog.server.cli.TierlogCli \"$@\"",
                        ""));
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        return launcher;
    }
}
