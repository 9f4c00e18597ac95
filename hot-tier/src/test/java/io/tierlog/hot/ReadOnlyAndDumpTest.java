package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.hot.testing.RandomBatches;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Read-only access never writes; the dump tool prints batches, records and index entries. */
class ReadOnlyAndDumpTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final TopicPartition tp = new TopicPartition("events", 0);

    private List<RecordBatch> writeLog(Path logDir) throws Exception {
        try (LogManager m =
                LogManager.open(
                        logDir,
                        t ->
                                LogConfig.from(
                                        Map.of(
                                                "segment.bytes",
                                                "3000",
                                                "index.interval.bytes",
                                                "200")),
                        time,
                        null)) {
            PartitionLog log = m.getOrCreate(tp);
            RandomBatches gen = new RandomBatches(21);
            for (int i = 0; i < 25; i++) {
                log.append(gen.batch());
            }
            return LogTestSupport.readAll(log, 1 << 20);
        }
    }

    private static Map<Path, String> snapshot(Path root) throws Exception {
        Map<Path, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.toList()) {
                FileTime t = Files.getLastModifiedTime(p);
                out.put(p, t.toMillis() + ":" + (Files.isRegularFile(p) ? Files.size(p) : 0));
            }
        }
        return out;
    }

    @Test
    void readOnlyDirServesEveryBatchWithoutWritingEvenWithoutIndexes() throws Exception {
        Path logDir = tmp.resolve("kafka-logs");
        List<RecordBatch> written = writeLog(logDir);
        Path part = logDir.resolve("events-0");
        try (Stream<Path> s = Files.list(part)) {
            for (Path p : s.filter(p -> p.toString().endsWith(".index")).toList()) {
                Files.delete(p);
            }
        }
        Files.writeString(part.resolve("leader-epoch-checkpoint"), "0\n1\n0 0\n");
        Files.writeString(
                part.resolve("partition.metadata"),
                "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n");
        Files.createDirectories(logDir.resolve("not a partition"));
        Map<Path, String> before = snapshot(logDir);
        try (ReadOnlyLogDir ro = ReadOnlyLogDir.open(logDir)) {
            assertThat(ro.partitions()).containsExactly(tp);
            List<SegmentInfo> segs = ro.segments(tp);
            assertThat(segs.size()).isGreaterThan(2);
            assertThat(segs.get(segs.size() - 1).closed()).isFalse();
            List<RecordBatch> read = new ArrayList<>();
            for (SegmentInfo s : segs) {
                for (RecordBatch b : ro.readSegment(s).batches()) {
                    read.add(b);
                }
            }
            assertThat(read).isEqualTo(written);
        }
        assertThat(snapshot(logDir)).isEqualTo(before);
    }

    @Test
    void readOnlyDirStopsAtATornTail() throws Exception {
        Path logDir = tmp.resolve("kafka-logs");
        List<RecordBatch> written = writeLog(logDir);
        try (ReadOnlyLogDir ro = ReadOnlyLogDir.open(logDir)) {
            List<SegmentInfo> segs = ro.segments(tp);
            SegmentInfo last = segs.get(segs.size() - 1);
            Files.write(
                    last.logFile(),
                    new byte[] {0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
                    java.nio.file.StandardOpenOption.APPEND);
            int n = 0;
            for (SegmentInfo s : ro.segments(tp)) {
                for (RecordBatch ignored : ro.readSegment(s).batches()) {
                    n++;
                }
            }
            assertThat(n).isEqualTo(written.size());
        }
    }

    @Test
    void dumpPrintsBatchesRecordsAndIndexEntries() throws Exception {
        Path logDir = tmp.resolve("log");
        writeLog(logDir);
        Path seg = logDir.resolve("events-0/00000000000000000000.log");
        String shallow = dump(seg, false);
        assertThat(shallow)
                .contains("Log starting offset: 0")
                .contains("baseOffset: 0 lastOffset: ")
                .contains("isvalid: true");
        assertThat(shallow).doesNotContain("| offset:");
        assertThat(dump(seg, true)).contains("| offset: 0 CreateTime: ");
        assertThat(dump(logDir.resolve("events-0/00000000000000000000.index"), false))
                .contains("offset: ")
                .contains(" position: ");
        assertThat(dump(logDir.resolve("events-0/00000000000000000000.timeindex"), false))
                .contains("timestamp: ");
    }

    @Test
    void dumpReportsATornTailAndRefusesOtherFiles() throws Exception {
        Path logDir = tmp.resolve("log");
        writeLog(logDir);
        Path seg = logDir.resolve("events-0/00000000000000000000.log");
        Files.write(seg, new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
        assertThat(dump(seg, false)).contains("Found 3 invalid bytes at the end");
        Path other = tmp.resolve("notes.txt");
        Files.writeString(other, "x");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> dump(other, false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fileSliceTransfersExactlyItsBytesToAChannel() throws Exception {
        Path logDir = tmp.resolve("log");
        writeLog(logDir);
        try (ReadOnlyLogDir ro = ReadOnlyLogDir.open(logDir)) {
            FileSlice slice = ro.readSegment(ro.segments(tp).get(0));
            java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
            try (var target = java.nio.channels.Channels.newChannel(sink)) {
                long done = 0;
                while (done < slice.sizeInBytes()) {
                    done += slice.transferTo(target, done, slice.sizeInBytes() - done);
                }
            }
            assertThat(java.nio.ByteBuffer.wrap(sink.toByteArray())).isEqualTo(slice.readFully());
        }
    }

    private static String dump(Path file, boolean deep) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SegmentDump.dump(file, new PrintStream(bytes, true, StandardCharsets.UTF_8), deep);
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
