package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read-only reader of a dir a live server writes meets the cleaner's swap: the segment file it
 * read before is renamed away and a new file takes its name. The reader must read the new file, not
 * fail on the channel it kept of the old one.
 */
class ReadOnlyLogDirSwapTest {
    @TempDir Path dir;

    private static void writeSegment(Path f, int batches) throws Exception {
        Path tmp = f.resolveSibling(f.getFileName() + ".swap");
        try (FileChannel ch =
                FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (int i = 0; i < batches; i++) {
                ByteBuffer b =
                        MemoryRecords.withRecords(
                                        i,
                                        Compression.NONE,
                                        new SimpleRecord(
                                                1L,
                                                ("value-" + i).getBytes(StandardCharsets.UTF_8)))
                                .buffer();
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
        }
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void segmentsReadsTheFileThatReplacedTheOneItReadBefore() throws Exception {
        TopicPartition tp = new TopicPartition("t", 0);
        Path pdir = Files.createDirectories(dir.resolve("t-0"));
        Path seg = pdir.resolve(LogSegment.fileName(0) + LogSegment.LOG_SUFFIX);
        writeSegment(seg, 1);
        try (ReadOnlyLogDir ro = ReadOnlyLogDir.open(dir)) {
            assertThat(ro.segments(tp))
                    .singleElement()
                    .satisfies(s -> assertThat(s.nextOffset()).isEqualTo(1));
            writeSegment(seg, 3); // the swap: a new inode under the same name, larger
            List<SegmentInfo> now = ro.segments(tp);
            assertThat(now).singleElement().satisfies(s -> assertThat(s.nextOffset()).isEqualTo(3));
            assertThat(ro.findCorruption(now.get(0))).isEmpty();
        }
    }
}
