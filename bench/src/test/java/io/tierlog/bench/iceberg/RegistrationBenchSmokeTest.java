package io.tierlog.bench.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registration bench runs (tiny, result discarded but for its own consistency). */
class RegistrationBenchSmokeTest {
    @Test
    void registrationBenchRunsAndRegistersEveryObjectItOffloads(@TempDir Path dir)
            throws Exception {
        RegistrationBench.Result r = RegistrationBench.run(dir, 3, 10, 100, 5);
        assertThat(r.tableFiles()).as("every offloaded object is a table file").isEqualTo(8);
        assertThat(r.registerCpuMsPerObject()).isPositive();
    }
}
