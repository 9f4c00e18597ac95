package io.tierlog.itests.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Time;
import io.tierlog.hot.AppendResult;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.SegmentInfo;
import io.tierlog.hot.testing.RandomBatches;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2 proof, first half of the interop with Apache Kafka 4.4.0: segments written by tierlog's
 * hot tier are accepted by Kafka's own {@code DumpLogSegments} in deep iteration (every batch and
 * record decodes, CRCs are valid, offsets are consecutive), both while the log is open and after it
 * is closed, and its index checks ({@code --index-sanity-check}: the check a broker runs at
 * start-up; {@code --verify-index-only}: every offset and time index entry points at the right
 * batch) find nothing wrong.
 */
class TierlogSegmentsPassKafkaToolsIT {
    @TempDir Path tmp;

    private record Written(
            PartitionLog log, int batches, long records, Set<CompressionType> codecs) {}

    @Test
    void kafkaDumpLogSegmentsAcceptsTierlogSegmentsAndIndexes() throws Exception {
        // CreateTime, small segments (many rolls), an index entry every KiB
        Written createTime =
                write(
                        "interop-create-0",
                        Map.of("segment.bytes", "65536", "index.interval.bytes", "1024"),
                        1);
        // LogAppendTime (offsets and timestamps rewritten by tierlog), tiny index files so the
        // segments also roll because an index is full, also when one append brings several
        // batches that each earn an index entry
        Written appendTime =
                write(
                        "interop-appendtime-1",
                        Map.of(
                                "message.timestamp.type", "LogAppendTime",
                                "segment.bytes", "1048576",
                                "segment.index.bytes", "240",
                                "index.interval.bytes", "512"),
                        2);
        for (Written w : List.of(createTime, appendTime)) {
            assertThat(w.codecs()).as("codecs written").containsAll(RandomBatches.CODECS);
            assertThat(w.log().segments()).as("several segments").hasSizeGreaterThan(3);
        }
        // While the logs are open (the last segment active): every .log file, as a broker would
        // see it after a crash. Its index files are preallocated, as Kafka's own active ones are,
        // so they are checked after close.
        List<Path> openLogs = new ArrayList<>();
        for (Written w : List.of(createTime, appendTime)) {
            for (SegmentInfo s : w.log().segments()) {
                openLogs.add(s.logFile());
            }
        }
        String live = KafkaTools.dumpLogSegments(openLogs, tmp, "--deep-iteration");
        assertThat(KafkaTools.errorLines(live)).as("deep iteration of the open logs").isEmpty();
        assertThat(live.lines().filter(l -> l.startsWith("| offset:")).count())
                .isEqualTo(createTime.records() + appendTime.records());
        for (Written w : List.of(createTime, appendTime)) {
            w.log().close(); // closed segments and the (trimmed) last, formerly active one
        }

        List<Path> logs = new ArrayList<>();
        List<Path> indexes = new ArrayList<>();
        for (Written w : List.of(createTime, appendTime)) {
            try (Stream<Path> files = Files.list(w.log().dir())) {
                for (Path f : files.sorted().toList()) {
                    String name = f.getFileName().toString();
                    if (name.endsWith(".log")) {
                        logs.add(f);
                    } else if (name.endsWith(".index") || name.endsWith(".timeindex")) {
                        indexes.add(f);
                    }
                }
            }
        }
        assertThat(indexes).hasSize(2 * logs.size());

        String deep = KafkaTools.dumpLogSegments(logs, tmp, "--deep-iteration");
        assertThat(KafkaTools.errorLines(deep)).as("DumpLogSegments --deep-iteration").isEmpty();
        long batchLines = deep.lines().filter(l -> l.startsWith("baseOffset:")).count();
        long recordLines = deep.lines().filter(l -> l.startsWith("| offset:")).count();
        assertThat(batchLines).isEqualTo(createTime.batches() + appendTime.batches());
        assertThat(recordLines).isEqualTo(createTime.records() + appendTime.records());
        assertThat(deep).contains("compresscodec: zstd").contains("compresscodec: lz4");

        String sanity = KafkaTools.dumpLogSegments(indexes, tmp, "--index-sanity-check");
        assertThat(KafkaTools.errorLines(sanity)).as("--index-sanity-check").isEmpty();
        assertThat(sanity.lines().filter(l -> l.endsWith("passed sanity check.")).count())
                .as("index files that passed Kafka's start-up sanity check")
                .isEqualTo(indexes.size());

        String verify = KafkaTools.dumpLogSegments(indexes, tmp, "--verify-index-only");
        assertThat(KafkaTools.errorLines(verify)).as("--verify-index-only").isEmpty();

        // and the default index dump, which also cross-checks every entry against the .log
        String dump = KafkaTools.dumpLogSegments(indexes, tmp);
        assertThat(KafkaTools.errorLines(dump)).as("index dump").isEmpty();
        assertThat(dump).contains("offset: ").contains("timestamp: ");
    }

    /**
     * Appends random batches (every codec, null keys and values, headers), 1 to 3 per append, until
     * the log has at least 6 segments and 400 batches.
     */
    private Written write(String partitionDir, Map<String, String> settings, long seed)
            throws IOException {
        PartitionLog log =
                PartitionLog.open(
                        tmp.resolve("log").resolve(partitionDir),
                        LogConfig.from(settings),
                        Time.SYSTEM);
        RandomBatches random = new RandomBatches(seed, System.currentTimeMillis() - 60_000);
        int batches = 0;
        long records = 0;
        Set<CompressionType> codecs = EnumSet.noneOf(CompressionType.class);
        while (log.segments().size() < 6 || batches < 400) {
            // several batches per append, as they arrive in a Produce request
            List<ByteBuffer> request = new ArrayList<>();
            int n = 1 + random.random().nextInt(3);
            for (int i = 0; i < n; i++) {
                ByteBuffer b = random.batch();
                for (RecordBatch rb : MemoryRecords.readableRecords(b.duplicate()).batches()) {
                    records += rb.countOrNull();
                    codecs.add(rb.compressionType());
                }
                request.add(b);
            }
            AppendResult r = log.append(RandomBatches.concat(request));
            assertThat(r.duplicate()).isFalse();
            batches += n;
        }
        assertThat(log.logEndOffset()).isEqualTo(records);
        SegmentInfo last = log.segments().get(log.segments().size() - 1);
        assertThat(last.closed()).isFalse();
        return new Written(log, batches, records, codecs);
    }
}
