package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Property;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Binary-search lookups of both indexes agree with a linear scan over the same entries (0 to 300
 * random entries, 200 random targets per try; seeded, see {@link Property}).
 */
class IndexPropertiesTest {

    @Test
    void offsetIndexLookupAgreesWithLinearScan() {
        Property.forAll(50, r -> offsetIndexLookupCheck(r, Property.between(r, 0, 300)));
    }

    private static void offsetIndexLookupCheck(Random r, int n) throws Exception {
        Path tmp = TempDirs.create();
        try {
            long base = r.nextInt(1_000_000);
            OffsetIndex idx =
                    new OffsetIndex(
                            tmp.resolve("x.index"),
                            base,
                            8 * 400,
                            true,
                            true,
                            OpenFiles.bounded(0));
            List<long[]> entries = new ArrayList<>();
            long offset = base;
            int pos = 0;
            for (int i = 0; i < n; i++) {
                offset += 1 + r.nextInt(50);
                pos += 1 + r.nextInt(5000);
                idx.append(offset, pos);
                entries.add(new long[] {offset, pos});
            }
            for (int t = 0; t < 200; t++) {
                long target = base + r.nextInt((int) (offset - base + 10));
                long expected = 0;
                for (long[] e : entries) {
                    if (e[0] < target) {
                        expected = e[1];
                    }
                }
                assertThat((long) idx.lookup(target)).isEqualTo(expected);
            }
            // survives trim and reopen
            idx.trimToValidSize();
            OffsetIndex reopened =
                    new OffsetIndex(
                            tmp.resolve("x.index"),
                            base,
                            8 * 400,
                            false,
                            false,
                            OpenFiles.bounded(0));
            assertThat(reopened.entries()).isEqualTo(n);
        } finally {
            TempDirs.delete(tmp);
        }
    }

    @Test
    void timeIndexLookupAgreesWithLinearScan() {
        Property.forAll(50, r -> timeIndexLookupCheck(r, Property.between(r, 0, 300)));
    }

    private static void timeIndexLookupCheck(Random r, int n) throws Exception {
        Path tmp = TempDirs.create();
        try {
            long base = r.nextInt(1_000_000);
            TimeIndex idx =
                    new TimeIndex(
                            tmp.resolve("x.timeindex"),
                            base,
                            12 * 400,
                            true,
                            true,
                            OpenFiles.bounded(0));
            List<long[]> entries = new ArrayList<>();
            long ts = 1_700_000_000_000L;
            long offset = base;
            for (int i = 0; i < n; i++) {
                ts += r.nextInt(4) - 1; // sometimes not increasing: maybeAppend must skip those
                offset += 1 + r.nextInt(20);
                if (entries.isEmpty() || ts > entries.get(entries.size() - 1)[0]) {
                    entries.add(new long[] {ts, offset});
                }
                idx.maybeAppend(ts, offset);
            }
            assertThat(idx.entries()).isEqualTo(entries.size());
            for (int t = 0; t < 200; t++) {
                long target = 1_700_000_000_000L - 2 + r.nextInt(n + 5);
                long expected = base;
                for (long[] e : entries) {
                    if (e[0] < target) {
                        expected = e[1];
                    }
                }
                assertThat(idx.lookup(target)).isEqualTo(expected);
            }
        } finally {
            TempDirs.delete(tmp);
        }
    }
}
