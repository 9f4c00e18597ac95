package io.tierlog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a test: the cost of single-object rounds (process CPU-ms and wall ms per sync), run with
 * {@code -Dtierlog.probe.rounds=N} (skipped otherwise), e.g. under JFR to profile a round.
 */
class RoundCostProbe {
    @TempDir Path dir;

    @Test
    void singleObjectRounds() throws Exception {
        int rounds = Integer.getInteger("tierlog.probe.rounds", 0);
        Assumptions.assumeTrue(rounds > 0, "set -Dtierlog.probe.rounds");
        try (TablesFixture fx = new TablesFixture(dir, "jdbc")) {
            fx.catalog.createTopic("events", 1, Map.of());
            fx.append("events", 0, 10);
            try (IcebergTopicTables tables = fx.open()) {
                tables.sync("events");
                var os =
                        (com.sun.management.OperatingSystemMXBean)
                                ManagementFactory.getOperatingSystemMXBean();
                long cpu = 0;
                long[] wall = new long[rounds];
                for (int i = 0; i < rounds; i++) {
                    fx.append("events", 0, 2000);
                    long c0 = os.getProcessCpuTime();
                    long w0 = System.nanoTime();
                    assertThat(tables.sync("events").added()).isEqualTo(1);
                    wall[i] = System.nanoTime() - w0;
                    cpu += os.getProcessCpuTime() - c0;
                }
                Arrays.sort(wall);
                System.out.printf(
                        "PROBE rounds=%d cpu-ms/round=%.1f wall-ms p50=%.1f%n",
                        rounds, cpu / 1e6 / rounds, wall[rounds / 2] / 1e6);
            }
        }
    }
}
