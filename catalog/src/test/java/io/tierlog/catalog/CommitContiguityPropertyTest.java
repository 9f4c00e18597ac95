package io.tierlog.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Property;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of commits (contiguous, gap, overlap, duplicate, same range under a new key)
 * against an in-memory oracle: the catalog accepts exactly what the oracle accepts and every
 * partition stays contiguous. Seeded and reproducible (see {@link Property}).
 */
class CommitContiguityPropertyTest {

    enum Kind {
        NEXT,
        GAP,
        OVERLAP,
        DUPLICATE,
        SAME_RANGE_NEW_KEY
    }

    record Step(Kind kind, int partition, int length, int shift) {}

    /** Kinds weighted 5:1:1:1:1 (mostly contiguous commits, as a real uploader makes). */
    private static Kind kind(Random r) {
        int i = r.nextInt(9);
        return i < 5 ? Kind.NEXT : Kind.values()[i - 4];
    }

    /** 1 to 40 steps on partition 0 or 1: length 1..50, shift 1..20. */
    static List<Step> steps(Random r) {
        int n = Property.between(r, 1, 40);
        List<Step> steps = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            steps.add(
                    new Step(
                            kind(r),
                            r.nextInt(2),
                            Property.between(r, 1, 50),
                            Property.between(r, 1, 20)));
        }
        return steps;
    }

    @Test
    void catalogAgreesWithTheOracleAndStaysContiguous() {
        Property.forAll(150, r -> commitAndCompare(steps(r), Property.between(r, 0L, 10_000L)));
    }

    private static void commitAndCompare(List<Step> steps, long firstStart) {
        try (Catalog catalog = Catalog.open("jdbc:sqlite::memory:")) {
            catalog.createTopic("t", 2, Map.of());
            List<List<ColdObject>> oracle = List.of(new ArrayList<>(), new ArrayList<>());
            int n = 0;
            for (Step s : steps) {
                List<ColdObject> committed = oracle.get(s.partition());
                long hw =
                        committed.isEmpty()
                                ? firstStart
                                : committed.get(committed.size() - 1).nextOffset();
                ColdObject candidate;
                boolean expectAccepted;
                boolean expectNoOp = false;
                switch (s.kind()) {
                    case NEXT -> {
                        candidate = object(s.partition(), hw, s.length(), "n" + n);
                        expectAccepted = true;
                    }
                    case GAP -> {
                        candidate = object(s.partition(), hw + s.shift(), s.length(), "g" + n);
                        expectAccepted = committed.isEmpty();
                    }
                    case OVERLAP -> {
                        long start = Math.max(0, hw - s.shift());
                        candidate = object(s.partition(), start, s.length() + s.shift(), "o" + n);
                        expectAccepted = committed.isEmpty();
                    }
                    case DUPLICATE -> {
                        if (committed.isEmpty()) {
                            continue;
                        }
                        candidate = committed.get(s.shift() % committed.size());
                        expectAccepted = true;
                        expectNoOp = true;
                    }
                    default -> {
                        if (committed.isEmpty()) {
                            continue;
                        }
                        ColdObject old = committed.get(s.shift() % committed.size());
                        candidate =
                                object(
                                        s.partition(),
                                        old.firstOffset(),
                                        (int) (old.lastOffset() - old.firstOffset() + 1),
                                        "r" + n);
                        expectAccepted = false;
                    }
                }
                n++;
                CommitResult result;
                try {
                    result = catalog.commit(candidate);
                } catch (CommitConflictException e) {
                    assertThat(expectAccepted).as("refused %s", candidate).isFalse();
                    long oracleHw = committed.isEmpty() ? 0 : hw;
                    assertThat(e.coldHighWatermark()).isEqualTo(oracleHw);
                    continue;
                }
                assertThat(expectAccepted).as("accepted %s", candidate).isTrue();
                if (expectNoOp) {
                    assertThat(result).isEqualTo(CommitResult.ALREADY_COMMITTED);
                } else {
                    assertThat(result).isEqualTo(CommitResult.COMMITTED);
                    committed.add(candidate);
                }
            }
            for (int p = 0; p < 2; p++) {
                List<ColdObject> actual = catalog.objects("t", p);
                assertThat(actual).isEqualTo(oracle.get(p));
                for (int i = 1; i < actual.size(); i++) {
                    assertThat(actual.get(i).firstOffset())
                            .isEqualTo(actual.get(i - 1).nextOffset());
                }
                PartitionState state = catalog.partitionState("t", p);
                assertThat(state.coldHighWatermark())
                        .isEqualTo(
                                actual.isEmpty() ? 0 : actual.get(actual.size() - 1).nextOffset());
            }
        }
    }

    private static ColdObject object(int partition, long first, int length, String key) {
        return new ColdObject(
                "t",
                partition,
                first,
                first + length - 1,
                first,
                first + length,
                length,
                length * 100L,
                "t/" + partition + "/" + key,
                Instant.ofEpochMilli(1_700_000_000_000L));
    }
}
