package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.Property;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PartitionLog#appendWithoutBlocking}: it writes only what is a write into the active
 * segment's page cache, and refuses, leaving the log exactly as it was, every append that would
 * roll (new files, a producer snapshot), allocate index pages or fsync; the refused append done by
 * {@link PartitionLog#append} gives the same log as if every append had been a blocking one.
 */
class AppendWithoutBlockingTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);

    @Test
    void rollsAndIndexAllocationsAreRefusedAndLeftToTheBlockingAppend() {
        Property.forAll(10, r -> refusedAppendsLeaveNoTrace(r.nextLong()));
    }

    private void refusedAppendsLeaveNoTrace(long seed) throws Exception {
        LogConfig cfg =
                LogTestSupport.config(
                        Map.of(
                                "segment.bytes", "8192",
                                "index.interval.bytes", "256",
                                "segment.index.bytes", "65536"));
        RandomBatches gen = new RandomBatches(seed);
        List<ByteBuffer> sent = new ArrayList<>();
        Path dir = tmp.resolve("s" + Long.toHexString(seed) + "-0");
        int inPlace = 0;
        int refused = 0;
        try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
            for (int i = 0; i < 150; i++) {
                ByteBuffer b = gen.batch();
                sent.add(LogTestSupport.copy(b));
                long end = log.logEndOffset();
                List<SegmentInfo> before = log.segments();
                List<String> files = files(dir);
                AppendResult r =
                        log.appendWithoutBlocking(b, PartitionLog.NO_PARTITION_LEADER_EPOCH);
                if (r == null) {
                    refused++;
                    assertThat(log.logEndOffset()).as("end offset after a refusal").isEqualTo(end);
                    assertThat(log.segments()).as("segments after a refusal").isEqualTo(before);
                    assertThat(files(dir)).as("files after a refusal").isEqualTo(files);
                    r = log.append(b);
                } else {
                    inPlace++;
                    assertThat(log.segments().size())
                            .as("an append without blocking never rolls")
                            .isEqualTo(before.size());
                    assertThat(files(dir)).as("nor creates or deletes a file").isEqualTo(files);
                }
                assertThat(r.firstOffset()).isEqualTo(end);
            }
            assertThat(log.segments()).as("the log rolled").hasSizeGreaterThan(3);
            assertThat(inPlace).as("appends done without blocking").isPositive();
            assertThat(refused)
                    .as("refusals: at least one per roll")
                    .isGreaterThanOrEqualTo(log.segments().size() - 1);
            PartitionLogTest.assertSame(sent, LogTestSupport.readAll(log, 3000));
        }
        try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
            PartitionLogTest.assertSame(sent, LogTestSupport.readAll(log, 100_000));
        }
    }

    @Test
    void anAppendThatWaitsForFsyncIsAlwaysRefused() throws Exception {
        LogConfig cfg = LogTestSupport.config(Map.of("log.durability", "fsync"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("f-0"), cfg, time)) {
            ByteBuffer b = new RandomBatches(7).batch();
            assertThat(log.appendWithoutBlocking(b, PartitionLog.NO_PARTITION_LEADER_EPOCH))
                    .isNull();
            assertThat(log.logEndOffset()).isZero();
        }
    }

    @Test
    void anAppendThatReachesFlushMessagesIsRefused() throws Exception {
        LogConfig cfg = LogTestSupport.config(Map.of("flush.messages", "1"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("m-0"), cfg, time)) {
            ByteBuffer b = new RandomBatches(8).batch();
            assertThat(log.appendWithoutBlocking(b, PartitionLog.NO_PARTITION_LEADER_EPOCH))
                    .as("the append would fsync")
                    .isNull();
            assertThat(log.append(b).firstOffset()).isZero();
        }
    }

    private static List<String> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
