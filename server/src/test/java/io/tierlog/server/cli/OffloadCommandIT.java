package io.tierlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.SegmentFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tierlog offload --once} with the embedded defaults, as a user runs it. */
class OffloadCommandIT {
    @TempDir Path dir;

    int run(ByteArrayOutputStream out, String... args) {
        CommandLine cl =
                new CommandLine(
                        new OffloadCommand(new PrintStream(out, true, StandardCharsets.UTF_8)));
        cl.setErr(new java.io.PrintWriter(out, true));
        return cl.execute(args);
    }

    /**
     * {@code --log-dir <log> --once --progress lines --set data.dir=<dir>/data}, then {@code more}.
     */
    int runOnce(ByteArrayOutputStream out, SegmentFiles log, String... more) {
        return run(out, onceArgs(log, more));
    }

    String[] onceArgs(SegmentFiles log, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--log-dir",
                                log.dir().toString(),
                                "--once",
                                "--progress",
                                "lines",
                                "--set",
                                "data.dir=" + dir.resolve("data")));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void onceOffloadsEveryClosedSegmentIntoTheEmbeddedColdTierAndPrintsALinePerObject()
            throws Exception {
        SegmentFiles log = new SegmentFiles(dir.resolve("kafka-logs"), 1);
        TopicPartition a = new TopicPartition("clicks", 0);
        TopicPartition b = new TopicPartition("clicks", 1);
        log.append(a, 10, 10, 100);
        log.roll(a);
        log.append(b, 10, 10, 100);
        log.roll(b);
        log.append(b, 1, 10, 100); // the last segment: offloaded because the writer stopped
        java.nio.file.Files.createFile(log.dir().resolve(".kafka_cleanshutdown"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = runOnce(out, log, "--set", "offload.tmp.dir=" + dir.resolve("tmp"));
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(text).isZero();
        assertThat(text)
                .contains("committed clicks-0 offsets 0..99", "committed clicks-1 offsets 0..109");
        assertThat(text).contains("offloaded 2 objects, 210 records");

        // What the command's embedded S3 server and catalog hold, reopened over the same files.
        try (ColdTierFixture cold = ColdTierFixture.start(dir)) {
            List<ColdObject> objects = cold.catalog().objects("clicks", 1);
            assertThat(objects).hasSize(1);
            assertThat(SegmentFiles.describe(cold.readBack("clicks", 1)))
                    .isEqualTo(SegmentFiles.describe(log.allBatches(b)));
        }
    }

    @Test
    void aLostCatalogIsRefusedInOneLineAndNotRecreated() throws Exception {
        SegmentFiles log = new SegmentFiles(dir.resolve("kafka-logs"), 1);
        TopicPartition a = new TopicPartition("clicks", 0);
        log.append(a, 10, 10, 100);
        log.roll(a);
        String[] args = onceArgs(log, "--set", "offload.tmp.dir=" + dir.resolve("tmp"));
        assertThat(run(new ByteArrayOutputStream(), args)).isZero();
        assertThat(dir.resolve("data/catalog.id")).exists();
        for (String suffix : new String[] {"", "-wal", "-shm"}) {
            java.nio.file.Files.deleteIfExists(dir.resolve("data/catalog.db" + suffix));
        }
        java.io.PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = run(new ByteArrayOutputStream(), args);
        } finally {
            System.setErr(oldErr);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("does not exist")
                .contains("tierlog catalog rebuild");
        assertThat(dir.resolve("data/catalog.db")).doesNotExist();
    }

    @Test
    void withoutTheCleanShutdownMarkerTheLastSegmentOfEachPartitionWaits() throws Exception {
        SegmentFiles log = new SegmentFiles(dir.resolve("kafka-logs"), 1);
        TopicPartition a = new TopicPartition("clicks", 0);
        log.append(a, 10, 10, 100);
        log.roll(a);
        log.append(a, 3, 10, 100);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = runOnce(out, log);
        assertThat(code).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("committed clicks-0 offsets 0..99")
                .doesNotContain("0..129");
    }

    @Test
    void aDataDirInsideTheLogDirIsRefusedBeforeAnythingIsWritten() throws Exception {
        SegmentFiles log = new SegmentFiles(dir.resolve("kafka-logs"), 1);
        log.append(new TopicPartition("x", 0), 1, 1, 1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code =
                run(
                        out,
                        "--log-dir",
                        log.dir().toString(),
                        "--once",
                        "--set",
                        "data.dir=" + log.dir().resolve("data"));
        assertThat(code).isNotZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("offload never writes into");
        assertThat(log.dir().resolve("data")).doesNotExist();
    }

    @Test
    void aMissingLogDirIsAClearError() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = run(out, "--log-dir", dir.resolve("nope").toString(), "--once");
        assertThat(code).isNotZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("is not a directory");
    }
}
