package io.tierlog.bench.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness of {@code bench/cleaner-bench.sh} runs once, tiny (one run of 3,000 keyed records),
 * against a real Apache Kafka 4.4.0 broker and a real tierlog server started by its own launchers,
 * so a cleaner benchmark that no longer runs (a server that no longer cleans, a thread name that
 * changed, a checkpoint never reached) fails {@code mvn verify}. The figures are printed and
 * discarded.
 */
class CleanerBenchSmokeIT {
    @TempDir Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void cleanerBenchRunsOnceAgainstKafkaAndTierlog() throws Exception {
        Path launcher = SideBySideSmokeIT.tierlogLauncher(dir);
        Path work = dir.resolve("work");
        CleanerBench.main(
                new String[] {
                    "--runs",
                    "1",
                    "--records",
                    "3000",
                    "--tierlog",
                    launcher.toString(),
                    "--work",
                    work.toString()
                });
        assertThat(Files.isDirectory(work.resolve("run-1"))).isTrue();
    }
}
