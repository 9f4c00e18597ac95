package io.tierlog.bench.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transactional workload of {@code bench/side-by-side.sh} ({@code --workloads txn}) runs once,
 * tiny, against a real Apache Kafka 4.4.0 broker and a real tierlog server started by the harness's
 * own launchers: 2,000 records of 1 KiB through {@code ProducerPerformance --transactional-id} with
 * a commit every 50 ms, read back by a read_committed {@link TailConsumer} that must see every
 * record. A harness, launcher or server whose transactions no longer run to the end fails {@code
 * mvn verify}. The figures are printed and discarded.
 */
class TxnProduceBenchSmokeIT {
    @TempDir Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void transactionalWorkloadRunsOnceAgainstKafkaAndTierlog() throws Exception {
        Path launcher = SideBySideSmokeIT.tierlogLauncher(dir);
        Path runDir = dir.resolve("run-0");
        Files.createDirectories(runDir);
        try (ServerUnderTest kafka = KafkaServer.start(runDir.resolve("kafka"));
                ServerUnderTest tierlog =
                        TierlogServer.start(
                                launcher,
                                runDir.resolve("tierlog"),
                                List.of("transaction.coordinator.enable=true"))) {
            Map<String, Map<String, List<SideBySide.Figures>>> serve = new LinkedHashMap<>();
            SideBySide.runOnce(
                    List.of(kafka, tierlog),
                    new String[] {"kafka", "tierlog"},
                    null,
                    List.of(new SideBySide.Workload("smoke 1 KiB txn", 2_000, 1024, "none", 50)),
                    runDir,
                    0,
                    serve);
            SideBySide.report(serve, 1);
            assertThat(serve.get("smoke 1 KiB txn")).containsOnlyKeys("kafka", "tierlog");
        }
    }
}
