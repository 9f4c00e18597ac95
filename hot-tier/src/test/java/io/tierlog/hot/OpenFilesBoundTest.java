package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.hot.testing.RandomBatches;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bound on open segment files ({@code log.open.files.max}): a log dir with many partitions or
 * many segments never holds more descriptors than the bound, whatever is appended or read, and
 * closing an idle file never breaks a reader: a pinned slice (a sendfile in progress) keeps its
 * descriptor, and an unpinned one reopens its file.
 */
class OpenFilesBoundTest {
    private static final int BOUND = 16;
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);

    private LogManager open(Map<String, String> cfg) throws IOException {
        return LogManager.open(tmp.resolve("log"), t -> LogConfig.from(cfg), time, null, BOUND);
    }

    /**
     * Descriptors of this process open on segment files under {@code dir} (Linux /proc; the log
     * dir's {@code .lock} is not one), or -1.
     */
    static int descriptorsUnder(Path dir) throws IOException {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return -1;
        }
        Path real = dir.toRealPath();
        int n = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(fds)) {
            for (Path fd : ds) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (target.startsWith(real)
                            && !target.getFileName().toString().equals(LogManager.LOCK_FILE)) {
                        n++;
                    }
                } catch (IOException e) {
                    // closed while listing
                }
            }
        }
        return n;
    }

    private void assertWithinBound(LogManager m) throws IOException {
        assertThat(m.openFiles().openCount()).isLessThanOrEqualTo(BOUND);
        int fds = descriptorsUnder(m.logDir());
        if (fds >= 0) {
            assertThat(fds).as("descriptors under the log dir").isLessThanOrEqualTo(BOUND);
        }
    }

    @Test
    void manyPartitionsNeverHoldMoreFilesThanTheBoundAcrossAppendReadAndRestart() throws Exception {
        int partitions = 120;
        Map<TopicPartition, List<ByteBuffer>> sent = new java.util.HashMap<>();
        RandomBatches gen = new RandomBatches(11);
        try (LogManager m = open(Map.of())) {
            for (int p = 0; p < partitions; p++) {
                TopicPartition tp = new TopicPartition("many", p);
                PartitionLog log = m.getOrCreate(tp);
                for (int i = 0; i < 3; i++) {
                    ByteBuffer b = gen.batch();
                    sent.computeIfAbsent(tp, k -> new ArrayList<>()).add(LogTestSupport.copy(b));
                    log.append(b);
                }
                assertWithinBound(m);
            }
            for (PartitionLog log : m.partitions()) {
                PartitionLogTest.assertSame(
                        sent.get(log.topicPartition()), LogTestSupport.readAll(log, 1 << 20));
                assertWithinBound(m);
            }
            assertThat(m.openFiles().evictions()).isGreaterThan(0);
        }
        // unclean restart: every partition is recovered (opened), still within the bound
        try (LogManager m = open(Map.of())) {
            assertWithinBound(m);
            assertThat(m.partitions()).hasSize(partitions);
            for (PartitionLog log : m.partitions()) {
                PartitionLogTest.assertSame(
                        sent.get(log.topicPartition()), LogTestSupport.readAll(log, 1 << 20));
            }
            assertWithinBound(m);
        }
    }

    @Test
    void oneLogOfManySegmentsReadsEveryOffsetWithinTheBound() throws Exception {
        List<ByteBuffer> sent = new ArrayList<>();
        RandomBatches gen = new RandomBatches(7);
        try (LogManager m = open(Map.of("segment.bytes", "2000"))) {
            PartitionLog log = m.getOrCreate(new TopicPartition("long", 0));
            while (log.segments().size() < 5 * BOUND) {
                ByteBuffer b = gen.batch();
                sent.add(LogTestSupport.copy(b));
                log.append(b);
            }
            assertWithinBound(m);
            PartitionLogTest.assertSame(sent, LogTestSupport.readAll(log, 100));
            assertWithinBound(m);
            // timestamp lookups open segments too
            for (RecordBatch b : LogTestSupport.readAll(log, 1 << 20)) {
                assertThat(log.offsetForTimestamp(b.maxTimestamp())).isPresent();
            }
            assertWithinBound(m);
        }
    }

    @Test
    void aPinnedSliceKeepsItsDescriptorWhileEveryOtherFileIsEvicted() throws Exception {
        RandomBatches gen = new RandomBatches(3);
        try (LogManager m = open(Map.of())) {
            PartitionLog first = m.getOrCreate(new TopicPartition("pinned", 0));
            first.append(gen.batch());
            FileSlice slice = first.read(0, 1 << 20);
            ByteBuffer expected = slice.readFully();
            try (FileSlice.Pin pin = slice.pin()) {
                FileChannel ch = pin.channel();
                long before = m.openFiles().evictions();
                for (int p = 0; p < 4 * BOUND; p++) {
                    m.getOrCreate(new TopicPartition("others", p)).append(gen.batch());
                }
                assertThat(m.openFiles().evictions() - before).isGreaterThan(2L * BOUND);
                assertThat(ch.isOpen()).as("the pinned channel survived eviction").isTrue();
                // as Netty's file region does: several transfers from the pinned channel
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                var target = Channels.newChannel(out);
                long pos = 0;
                while (pos < slice.sizeInBytes()) {
                    pos +=
                            ch.transferTo(
                                    slice.position() + pos,
                                    Math.min(7, slice.sizeInBytes() - pos),
                                    target);
                }
                assertThat(ByteBuffer.wrap(out.toByteArray())).isEqualTo(expected);
            }
            // released: the next eviction pass may close it, and a later read reopens the file
            for (int p = 0; p < 4 * BOUND; p++) {
                m.getOrCreate(new TopicPartition("more", p)).append(gen.batch());
            }
            assertThat(slice.readFully().remaining()).isEqualTo(slice.sizeInBytes());
            assertWithinBound(m);
        }
    }

    @Test
    void aSegmentDeletedWhilePinnedIsClosedByTheLastRelease() throws Exception {
        RandomBatches gen = new RandomBatches(5);
        try (LogManager m = open(Map.of("segment.bytes", "2000", "local.retention.bytes", "0"))) {
            PartitionLog log = m.getOrCreate(new TopicPartition("retained", 0));
            while (log.segments().size() < 3) {
                log.append(gen.batch());
            }
            FileSlice slice = log.read(0, 1 << 20);
            FileSlice.Pin pin = slice.pin();
            assertThat(log.maybeDeleteSegments(Long.MAX_VALUE)).isGreaterThan(0);
            // file.delete.delay.ms passes; the deleter closes and removes the files
            time.advance(HotTierOptions.FILE_DELETE_DELAY_MS.defaultValue().toMillis() + 1);
            log.maybeDeleteSegments(Long.MAX_VALUE);
            assertThat(pin.channel().isOpen()).as("open until the transfer ends").isTrue();
            assertThat(pin.channel().size())
                    .isGreaterThanOrEqualTo(slice.position() + slice.sizeInBytes());
            FileChannel ch = pin.channel();
            pin.close();
            assertThat(ch.isOpen()).as("closed by the last release").isFalse();
        }
    }

    @Test
    void derivedDefaultLeavesRoomForEverythingElse() {
        long limit = OpenFiles.maxFileDescriptors();
        int d = OpenFiles.defaultMax();
        assertThat(d).isGreaterThanOrEqualTo(OpenFiles.MIN_MAX);
        if (limit > 2 * OpenFiles.RESERVED_DESCRIPTORS) {
            assertThat((long) d).isLessThan(limit - OpenFiles.RESERVED_DESCRIPTORS);
        }
        assertThat(OpenFiles.bounded(0).max()).isEqualTo(d);
        assertThat(OpenFiles.bounded(40).max()).isEqualTo(40);
    }

    @Test
    void aReadOnlyLogDirOfManySegmentsReadsEverythingWithinTheBound() throws Exception {
        RandomBatches gen = new RandomBatches(13);
        int partitions = 3 * BOUND;
        try (LogManager m = open(Map.of("segment.bytes", "3000"))) {
            for (int p = 0; p < partitions; p++) {
                PartitionLog log = m.getOrCreate(new TopicPartition("ro", p));
                while (log.segments().size() < 3) {
                    log.append(gen.batch());
                }
            }
        }
        Path logDir = tmp.resolve("log");
        try (ReadOnlyLogDir ro = ReadOnlyLogDir.open(logDir, BOUND)) {
            int batches = 0;
            for (TopicPartition tp : ro.partitions()) {
                for (SegmentInfo s : ro.segments(tp)) {
                    FileSlice slice = ro.readSegment(s);
                    assertThat(slice.readFully().remaining()).isEqualTo(slice.sizeInBytes());
                    var it = ro.batchesFrom(s, s.baseOffset());
                    while (it.hasNext()) {
                        it.next();
                        batches++;
                    }
                    assertThat(ro.openFiles().openCount()).isLessThanOrEqualTo(BOUND);
                }
            }
            assertThat(batches).isGreaterThan(partitions * 2);
            assertThat(ro.openFiles().evictions()).isGreaterThan(0);
            int fds = descriptorsUnder(logDir);
            if (fds >= 0) {
                assertThat(fds).isLessThanOrEqualTo(BOUND);
            }
        }
    }
}
