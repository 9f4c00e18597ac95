package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inspect} and {@code verify} through {@link ReadOnlyTieredLog} while a {@link TieredLog}
 * (holding the log dir's lock) is open on the same data dir: they succeed and leave every file of
 * the log dir (and of the embedded store) as it was.
 */
class ReadOnlyTieredLogIT {
    private static final long BASE_TS = 1_700_000_000_000L;

    @TempDir Path dir;

    /** Relative path -> size and modification time of every file and folder under {@code root}. */
    static Map<String, String> snapshot(Path root) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                out.put(
                        root.relativize(p).toString(),
                        (Files.isDirectory(p) ? "dir" : Files.size(p))
                                + "@"
                                + Files.getLastModifiedTime(p).toInstant());
            }
        }
        return out;
    }

    private static void assertHealthy(ReadOnlyTieredLog ro, long hw) {
        assertThat(ro.verify(false)).isEmpty();
        assertThat(ro.verify(true)).isEmpty();
        List<PartitionReport> reports = ro.inspect(Optional.empty());
        assertThat(reports).hasSize(1);
        PartitionReport r = reports.get(0);
        assertThat(r.highWatermark()).isEqualTo(hw);
        assertThat(r.coldObjects()).isGreaterThan(2);
        assertThat(r.hotLogStartOffset()).isLessThanOrEqualTo(r.coldHighWatermark());
    }

    @Test
    void inspectAndVerifyWhileTheLogIsOpenWriteNothingIntoTheLogDir() throws Exception {
        try (EngineFixture fx = new EngineFixture(dir)) {
            Config config = fx.config(Map.of("offload.target.object.bytes", "8192"));
            Path logDir = dir.resolve("data/log");
            try (TieredLog live = TieredLog.open(config)) {
                live.createTopic(TP.topic(), 1, Map.of());
                EngineFixture.appendRecords(live, TP, 150, 10, BASE_TS);
                live.maintain();
                Map<String, String> before = snapshot(logDir);
                assertThat(before).containsKey(".lock").doesNotContainKey(".kafka_cleanshutdown");
                try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
                    assertHealthy(ro, 1500);
                }
                assertThat(snapshot(logDir)).isEqualTo(before);
                // the live log is unaffected and still writable
                EngineFixture.appendRecords(live, TP, 1, 10, BASE_TS);
                assertThat(live.latestOffset(TP)).isEqualTo(1510);
            }
        }
    }

    @Test
    void embeddedStoreIsReadThroughASecondEmbeddedServerWithoutWritingToIt() throws Exception {
        Config config =
                Config.of(
                        Map.of(
                                "data.dir", dir.resolve("data").toString(),
                                "s3.mode", "embedded",
                                "engine.background.enabled", "false",
                                "segment.bytes", "16384",
                                "retention.ms", "-1",
                                "offload.target.object.bytes", "8192",
                                "file.delete.delay.ms", "0"));
        try (TieredLog live = TieredLog.open(config)) {
            live.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(live, TP, 150, 10, BASE_TS);
            live.maintain();
            Map<String, String> logBefore = snapshot(dir.resolve("data/log"));
            Map<String, String> s3Before = snapshot(dir.resolve("data/s3"));
            try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
                assertHealthy(ro, 1500);
            }
            assertThat(snapshot(dir.resolve("data/log"))).isEqualTo(logBefore);
            assertThat(snapshot(dir.resolve("data/s3"))).isEqualTo(s3Before);
        }
    }
}
