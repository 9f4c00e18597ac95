package io.tierlog.hot;

import static io.tierlog.hot.CompactionKit.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka's cleaner semantics on the hot tier's own logs, driven by hand (cleanAllOnce). */
class LogCleanerTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final TopicPartition tp = new TopicPartition("t", 0);
    LogManager manager;

    @AfterEach
    void close() {
        if (manager != null) {
            manager.close();
        }
    }

    LogManager open(LogConfig config) throws Exception {
        return open(t -> config);
    }

    LogManager open(Function<String, LogConfig> configs) throws Exception {
        manager = LogManager.open(tmp.resolve("logs"), configs, time, null);
        return manager;
    }

    LogCleaner cleaner(TombstoneGate gate) throws Exception {
        return manager.startCleaner(cleanerConfig(1 << 20), gate);
    }

    /** Appends {@code n} batches of one record each: key k{i % keys}, value v{i}. */
    static void appendUpdates(PartitionLog log, MockTime time, int n, int keys) throws Exception {
        appendUpdates(log, time, n, keys, "k");
    }

    /** As above with keys {@code <prefix><i % keys>}. */
    static void appendUpdates(PartitionLog log, MockTime time, int n, int keys, String prefix)
            throws Exception {
        for (int i = 0; i < n; i++) {
            log.append(
                    batch(
                            Compression.NONE,
                            List.of(new Rec(prefix + (i % keys), "v" + i, time.milliseconds()))));
            time.advance(1);
        }
    }

    @Test
    void latestValueOfEveryKeySurvivesWithItsOffsetTimestampAndHeaders() throws Exception {
        PartitionLog log = open(compactConfig(Map.of())).getOrCreate(tp);
        appendUpdates(log, time, 200, 10);
        List<Read> before = readAll(log);
        Map<String, Read> latestBefore = latest(before);
        long activeBase = log.segments().get(log.segments().size() - 1).baseOffset();

        assertThat(cleaner(TombstoneGate.ALWAYS).cleanAllOnce()).isEqualTo(1);

        List<Read> after = readAll(log);
        assertThat(latest(after)).isEqualTo(latestBefore);
        // below the active segment only the latest record of each key there is left
        Map<String, Read> latestCleanable =
                latest(before.stream().filter(r -> r.offset() < activeBase).toList());
        assertThat(after.stream().filter(r -> r.offset() < activeBase).toList())
                .containsExactlyInAnyOrderElementsOf(latestCleanable.values());
        assertThat(after.size()).isLessThan(before.size());
        assertThat(after).allSatisfy(r -> assertThat(r.header()).isEqualTo("hdr-" + r.value()));
        assertThat(log.logEndOffset()).isEqualTo(200);
        // kafka's checkpoint format in the log dir root
        List<String> lines =
                Files.readAllLines(tmp.resolve("logs").resolve("cleaner-offset-checkpoint"));
        assertThat(lines.get(0)).isEqualTo("0");
        assertThat(lines.get(1)).isEqualTo("1");
        assertThat(lines.get(2)).isEqualTo("t 0 " + activeBase);
    }

    @Test
    void activeSegmentIsNeverCleaned() throws Exception {
        PartitionLog log = open(compactConfig(Map.of("segment.bytes", "1000000"))).getOrCreate(tp);
        appendUpdates(log, time, 100, 3);
        assertThat(cleaner(TombstoneGate.ALWAYS).cleanAllOnce()).isZero();
        assertThat(readAll(log)).hasSize(100);
    }

    @Test
    void tombstoneGetsItsDeleteHorizonOnFirstCleaningAndGoesAfterIt() throws Exception {
        PartitionLog log = open(compactConfig(Map.of())).getOrCreate(tp);
        appendUpdates(log, time, 50, 5);
        log.append(batch(Compression.NONE, List.of(new Rec("k1", null, time.milliseconds()))));
        appendUpdates(log, time, 60, 1000, "f"); // fresh keys: the tombstone's segment closes
        LogCleaner cleaner = cleaner(TombstoneGate.ALWAYS);
        assertThat(tombstoneBatches(log)).hasSize(1);
        cleaner.cleanAllOnce();
        List<RecordBatch> withTombstone = tombstoneBatches(log);
        assertThat(withTombstone).hasSize(1);
        assertThat(withTombstone.get(0).deleteHorizonMs().getAsLong())
                .isEqualTo(time.milliseconds() + 1000);
        assertThat(latest(readAll(log)).get("k1").value()).isNull();

        time.advance(500); // within delete.retention.ms: kept
        appendUpdates(log, time, 60, 1000, "g");
        cleaner.cleanAllOnce();
        assertThat(tombstoneBatches(log)).hasSize(1);

        time.advance(600); // past the horizon: removed, and the key's older values stay gone
        appendUpdates(log, time, 60, 1000, "g");
        cleaner.cleanAllOnce();
        assertThat(tombstoneBatches(log)).isEmpty();
        assertThat(readAll(log)).noneMatch(r -> r.key().equals("k1"));
    }

    @Test
    void tombstonesStayWhileTheGateSaysTheColdTierHasThePartition() throws Exception {
        PartitionLog log = open(compactConfig(Map.of())).getOrCreate(tp);
        appendUpdates(log, time, 50, 5);
        log.append(batch(Compression.NONE, List.of(new Rec("k1", null, time.milliseconds()))));
        appendUpdates(log, time, 60, 1000, "g");
        LogCleaner cleaner = cleaner(p -> false);
        cleaner.cleanAllOnce();
        time.advance(5000);
        appendUpdates(log, time, 60, 1000, "g");
        cleaner.cleanAllOnce();
        assertThat(tombstoneBatches(log)).hasSize(1);
        // superseded values of the key are still removed
        assertThat(readAll(log).stream().filter(r -> r.key().equals("k1"))).hasSize(1);
    }

    static List<RecordBatch> tombstoneBatches(PartitionLog log) throws Exception {
        List<RecordBatch> out = new ArrayList<>();
        for (RecordBatch b : LogTestSupport.readAll(log, 1 << 20)) {
            for (var r : b) {
                if (!r.hasValue()) {
                    out.add(b);
                    break;
                }
            }
        }
        return out;
    }

    @Test
    void belowTheDirtyRatioNothingIsCleaned() throws Exception {
        LogConfig c = compactConfig(Map.of("min.cleanable.dirty.ratio", "0.9"));
        PartitionLog log = open(c).getOrCreate(tp);
        appendUpdates(log, time, 200, 10);
        LogCleaner cleaner = cleaner(TombstoneGate.ALWAYS);
        assertThat(cleaner.cleanAllOnce()).isEqualTo(1); // all dirty: ratio 1 > 0.9
        appendUpdates(log, time, 30, 10); // a little dirt over a clean log
        CleaningStats s = cleaner.stats(tp).orElseThrow();
        assertThat(s.dirtyRatio()).isBetween(0.0, 0.9);
        int before = readAll(log).size();
        assertThat(cleaner.cleanAllOnce()).isZero();
        assertThat(readAll(log)).hasSize(before);
        assertThat(s.lastCleaningMs()).isPositive();
    }

    @Test
    void minCompactionLagKeepsYoungSegmentsDirty() throws Exception {
        LogConfig c = compactConfig(Map.of("min.compaction.lag.ms", "10000"));
        PartitionLog log = open(c).getOrCreate(tp);
        appendUpdates(log, time, 200, 10);
        LogCleaner cleaner = cleaner(TombstoneGate.ALWAYS);
        assertThat(cleaner.cleanAllOnce()).isZero();
        assertThat(cleaner.stats(tp).orElseThrow().firstUncleanableOffset()).isZero();
        time.advance(10_001);
        assertThat(cleaner.cleanAllOnce()).isEqualTo(1);
    }

    @Test
    void maxCompactionLagForcesCleaningBelowTheRatio() throws Exception {
        LogConfig c =
                compactConfig(
                        Map.of(
                                "min.cleanable.dirty.ratio",
                                "0.99",
                                "max.compaction.lag.ms",
                                "5000"));
        PartitionLog log = open(c).getOrCreate(tp);
        appendUpdates(log, time, 200, 10);
        LogCleaner cleaner = cleaner(TombstoneGate.ALWAYS);
        cleaner.cleanAllOnce(); // ratio 1: cleaned
        appendUpdates(log, time, 40, 10);
        assertThat(cleaner.cleanAllOnce()).isZero();
        time.advance(6000);
        assertThat(cleaner.stats(tp).orElseThrow().maxCompactionDelayMs()).isPositive();
        assertThat(cleaner.cleanAllOnce()).isEqualTo(1);
    }

    @Test
    void maxCompactionLagRollsTheActiveSegment() throws Exception {
        LogConfig c =
                compactConfig(Map.of("segment.bytes", "1000000", "max.compaction.lag.ms", "5000"));
        PartitionLog log = open(c).getOrCreate(tp);
        appendUpdates(log, time, 5, 2);
        time.advance(5001);
        log.maybeRoll();
        assertThat(log.segments()).hasSize(2);
    }

    @Test
    void compactedTopicRefusesRecordsWithoutKey() throws Exception {
        PartitionLog log = open(compactConfig(Map.of())).getOrCreate(tp);
        for (Compression codec : List.of(Compression.NONE, Compression.lz4().build())) {
            assertThatThrownBy(
                            () ->
                                    log.append(
                                            batch(
                                                    codec,
                                                    List.of(
                                                            new Rec("a", "1", 1),
                                                            new Rec(null, "2", 1)))))
                    .isInstanceOfSatisfying(
                            InvalidBatchException.class,
                            e ->
                                    assertThat(e.kind())
                                            .isEqualTo(InvalidBatchException.Kind.INVALID_RECORD));
        }
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void compressedBatchesKeepTheirCodec() throws Exception {
        PartitionLog log = open(compactConfig(Map.of())).getOrCreate(tp);
        for (int i = 0; i < 60; i++) {
            List<Rec> recs = new ArrayList<>();
            for (int k = 0; k < 5; k++) {
                recs.add(new Rec("k" + k, "v" + i + "-" + k, time.milliseconds()));
            }
            log.append(batch(Compression.zstd().build(), recs));
        }
        Map<String, Read> before = latest(readAll(log));
        cleaner(TombstoneGate.ALWAYS).cleanAllOnce();
        assertThat(latest(readAll(log))).isEqualTo(before);
        assertThat(LogTestSupport.readAll(log, 1 << 20).stream().filter(b -> b.countOrNull() > 0))
                .allSatisfy(b -> assertThat(b.compressionType()).isEqualTo(CompressionType.ZSTD));
    }

    @Test
    void smallCleanedSegmentsAreGroupedWithinSegmentBytes() throws Exception {
        PartitionLog log = open(compactConfig(Map.of())).getOrCreate(tp);
        appendUpdates(log, time, 400, 4);
        int before = log.segments().size();
        LogCleaner cleaner = cleaner(TombstoneGate.ALWAYS);
        cleaner.cleanAllOnce();
        // groups are made by the sizes before cleaning (as Kafka's): the next cleaning merges
        appendUpdates(log, time, 30, 4);
        cleaner.cleanAllOnce();
        assertThat(log.segments().size()).isLessThan(before);
        assertThat(log.segments())
                .allSatisfy(s -> assertThat(s.sizeInBytes()).isLessThanOrEqualTo(2048));
        // offsets of segments stay contiguous: each cleaned segment ends where its group ended
        List<SegmentInfo> segs = log.segments();
        for (int i = 1; i < segs.size(); i++) {
            assertThat(segs.get(i).baseOffset()).isEqualTo(segs.get(i - 1).nextOffset());
        }
    }

    @Test
    void aFullOffsetMapStopsAtASegmentBoundaryAndTheNextCleaningGoesOn() throws Exception {
        PartitionLog log = open(compactConfig(Map.of())).getOrCreate(tp);
        appendUpdates(log, time, 600, 1_000_000); // every key distinct
        LogCleaner cleaner = manager.startCleaner(cleanerConfig(1024 * 4), TombstoneGate.ALWAYS);
        cleaner.cleanAllOnce();
        long first = cleaner.checkpoint(tp).orElseThrow();
        long active = log.segments().get(log.segments().size() - 1).baseOffset();
        assertThat(first).isLessThan(active);
        assertThat(log.segments().stream().map(SegmentInfo::baseOffset)).contains(first);
        cleaner.cleanAllOnce();
        assertThat(cleaner.checkpoint(tp).orElseThrow()).isGreaterThan(first);
        assertThat(readAll(log)).hasSize(600);
    }

    @Test
    void idempotentProducerStateSurvivesCleaningAndReopen() throws Exception {
        LogConfig c = compactConfig(Map.of());
        PartitionLog log = open(c).getOrCreate(tp);
        long pid = 77;
        int seq = 0;
        for (int i = 0; i < 100; i++) {
            log.append(
                    batch(
                            Compression.NONE,
                            List.of(new Rec("k" + (i % 3), "v" + i, time.milliseconds())),
                            pid,
                            (short) 0,
                            seq++));
        }
        // the producer's last batch is superseded by another producer's later writes
        for (int i = 0; i < 100; i++) {
            log.append(batch(Compression.NONE, List.of(new Rec("k" + (i % 3), "w" + i, 1))));
        }
        cleaner(TombstoneGate.ALWAYS).cleanAllOnce();
        manager.close();
        for (Path f : Files.list(tmp.resolve("logs").resolve("t-0")).toList()) {
            if (f.toString().endsWith(".snapshot")) {
                Files.delete(f); // rebuilt from the batches alone
            }
        }
        PartitionLog reopened = open(c).getOrCreate(tp);
        assertThat(reopened.producerState(pid).orElseThrow().lastSequence()).isEqualTo(99);
        AppendResult next =
                reopened.append(
                        batch(
                                Compression.NONE,
                                List.of(new Rec("k9", "x", 1)),
                                pid,
                                (short) 0,
                                seq));
        assertThat(next.duplicate()).isFalse();
        assertThat(
                        new String(
                                Files.readAllBytes(
                                        tmp.resolve("logs").resolve("cleaner-offset-checkpoint")),
                                StandardCharsets.UTF_8))
                .startsWith("0\n1\n");
    }

    @Test
    void deletePolicyTopicsAreNotCleaned() throws Exception {
        PartitionLog log = open(compactConfig(Map.of("cleanup.policy", "delete"))).getOrCreate(tp);
        appendUpdates(log, time, 200, 10);
        assertThat(cleaner(TombstoneGate.ALWAYS).cleanAllOnce()).isZero();
        assertThat(readAll(log)).hasSize(200);
    }
}
