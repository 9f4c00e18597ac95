package io.tierlog.bench.tiered;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tiered-read harnesses run once on a tiny data set in {@code mvn verify} (numbers discarded),
 * so a harness that no longer runs fails the build: a few thousand records in 1 MiB segments, so
 * that most of them reach the cold tier (embedded S3 over loopback), one run of each case, no
 * warm-ups. A harness that hangs (for example waiting for an offload that never happens) fails at
 * the timeout.
 */
class TieredBenchSmokeIT {
    private static final Map<String, String> SMALL_SEGMENTS =
            Map.of("segment.bytes", Integer.toString(1 << 20));

    @TempDir Path dir;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void tieredReadBenchRunsOnce() throws Exception {
        new TieredReadBench(dir, 4_000, 1, SMALL_SEGMENTS).run();
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void tieredServerBenchRunsOnce() throws Exception {
        try (TieredServerBench bench = new TieredServerBench(dir, 4_000, 1, 0, SMALL_SEGMENTS)) {
            bench.run();
        }
    }
}
