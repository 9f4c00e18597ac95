package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.Property;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link LogSegment#read} finds the end of a slice by skipping over indexed batches instead of
 * reading every header: these properties check that the slice (first offset, next offset, size) is
 * exactly the one a header-by-header walk over the appended batches gives, for dense, sparse and
 * absent offset indexes, any byte limit and any high watermark inside the segment. Seeded and
 * reproducible (see {@link Property}).
 */
class SliceBoundaryPropertiesTest {
    /** One appended batch: offsets and size on disk. */
    record Batch(long first, long last, int size) {}

    @Test
    void sliceEndsOnTheBatchBoundaryAHeaderWalkFinds() {
        Property.forAll(20, r -> sliceBoundariesAgree(r.nextLong(), Property.between(r, 1, 80)));
    }

    private static void sliceBoundariesAgree(long seed, int batches) throws Exception {
        Path tmp = TempDirs.create();
        try {
            Random r = new Random(seed);
            int interval = List.of(0, 1, 600, 5000, 1 << 30).get(r.nextInt(5));
            LogConfig config =
                    LogConfig.from(
                            Map.of(
                                    "segment.bytes", String.valueOf(4000 + r.nextInt(60000)),
                                    "index.interval.bytes", String.valueOf(interval)));
            Path dir = tmp.resolve("slice-0");
            List<Batch> appended = new ArrayList<>();
            try (PartitionLog log =
                    PartitionLog.open(dir, config, new MockTime(1_700_000_000_000L))) {
                for (LogPropertiesTest.Appended a :
                        LogPropertiesTest.appendRandom(log, seed, batches)) {
                    appended.add(new Batch(a.first(), a.last(), a.bytes().remaining()));
                }
            }
            List<Long> bases;
            try (Stream<Path> files = Files.list(dir)) {
                bases =
                        files.map(p -> p.getFileName().toString())
                                .filter(n -> n.endsWith(LogSegment.LOG_SUFFIX))
                                .map(n -> Long.parseLong(n.substring(0, 20)))
                                .sorted()
                                .toList();
            }
            for (int i = 0; i < bases.size(); i++) {
                long base = bases.get(i);
                long nextBase = i + 1 < bases.size() ? bases.get(i + 1) : Long.MAX_VALUE;
                List<Batch> inSegment =
                        appended.stream()
                                .filter(b -> b.first() >= base && b.first() < nextBase)
                                .toList();
                if (inSegment.isEmpty()) {
                    continue;
                }
                LogSegment seg =
                        LogSegment.open(
                                dir, base, config, false, false, false, OpenFiles.bounded(0));
                try {
                    long segEnd = inSegment.get(inSegment.size() - 1).last() + 1;
                    int bytes = inSegment.stream().mapToInt(Batch::size).sum();
                    for (int k = 0; k < 30; k++) {
                        long start = base + (long) (r.nextDouble() * (segEnd - base));
                        int maxBytes = r.nextInt(bytes + 200);
                        long maxOffset =
                                r.nextBoolean()
                                        ? Long.MAX_VALUE
                                        : start + (long) (r.nextDouble() * (segEnd - start + 2));
                        FileSlice actual = seg.read(start, maxBytes, maxOffset);
                        long[] expected = walk(inSegment, start, maxBytes, maxOffset);
                        String what =
                                "read(" + start + ", " + maxBytes + ", " + maxOffset + ") of "
                                        + inSegment;
                        if (expected == null) {
                            assertThat(actual).as(what).isNull();
                        } else {
                            assertThat(actual).as(what).isNotNull();
                            assertThat(
                                            new long[] {
                                                actual.firstOffset(),
                                                actual.nextOffset(),
                                                actual.sizeInBytes()
                                            })
                                    .as(what)
                                    .containsExactly(expected);
                        }
                    }
                } finally {
                    seg.closeQuietly();
                }
            }
        } finally {
            TempDirs.delete(tmp);
        }
    }

    /** The oracle: {first offset, next offset, size} of the slice by walking every batch. */
    private static long[] walk(List<Batch> batches, long start, int maxBytes, long maxOffset) {
        long first = -1;
        long next = -1;
        long total = 0;
        for (Batch b : batches) {
            if (b.first() >= maxOffset) {
                break;
            }
            if (first < 0) {
                if (b.last() >= start) {
                    first = b.first();
                    next = b.last() + 1;
                    total = b.size();
                }
            } else {
                if (total + b.size() > maxBytes) {
                    break;
                }
                total += b.size();
                next = b.last() + 1;
            }
            if (first >= 0 && total >= maxBytes) {
                break;
            }
        }
        return first < 0 ? null : new long[] {first, next, total};
    }
}
