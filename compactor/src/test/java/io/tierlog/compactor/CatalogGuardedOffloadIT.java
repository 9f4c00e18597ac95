package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.CatalogGuard;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.common.MockTime;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compactor never commits or sweeps on the word of a catalog that is not the expected one, and
 * the sweeper never deletes an orphan that is the only copy of its offsets.
 */
class CatalogGuardedOffloadIT {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        cold.catalog().createTopic("t", 1, Map.of());
    }

    /** A hot tier whose only partition starts at {@code hotStart} (one closed empty segment). */
    private static SegmentSource hotStartingAt(long hotStart) {
        return new SegmentSource() {
            @Override
            public List<TopicPartition> partitions() {
                return List.of(TP);
            }

            @Override
            public List<SegmentInfo> segments(TopicPartition tp) {
                return tp.equals(TP)
                        ? List.of(
                                new SegmentInfo(TP, hotStart, hotStart, 0, 0, false, Path.of("x")))
                        : List.of();
            }

            @Override
            public BatchStream batches(SegmentInfo segment) throws IOException {
                throw new IOException("not used");
            }

            // only non-transactional batches: no transaction ever holds the offload back
            @Override
            public long lastStableOffset(TopicPartition tp) {
                return Long.MAX_VALUE;
            }

            @Override
            public List<io.tierlog.hot.AbortedTxn> abortedTransactions(
                    TopicPartition tp, long from, long upTo) {
                return List.of();
            }

            @Override
            public java.util.Optional<io.tierlog.hot.OngoingTxn> oldestOpenTransaction(
                    TopicPartition tp) {
                return java.util.Optional.empty();
            }

            @Override
            public String describe() {
                return "test source";
            }

            @Override
            public void close() {}
        };
    }

    @Test
    void sweeperKeepsOrphansHoldingOffsetsNeitherTheCatalogNorTheHotTierHolds() throws Exception {
        String committed = ObjectKeys.newKey("", "t", 0, 0, 9);
        String duplicate = ObjectKeys.newKey("", "t", 0, 0, 9);
        String onlyCopy = ObjectKeys.newKey("", "t", 0, 10, 29); // hot starts at 30
        String inHot = ObjectKeys.newKey("", "t", 0, 30, 39);
        for (String k : List.of(committed, duplicate, onlyCopy, inHot)) {
            cold.store().put(k, new byte[] {1});
        }
        cold.catalog().commit(new ColdObject("t", 0, 0, 9, 0, 0, 10, 1, committed, Instant.now()));
        MockTime later = new MockTime(System.currentTimeMillis() + Duration.ofDays(1).toMillis());
        new OrphanSweeper(
                        cold.catalog(),
                        cold.store(),
                        "",
                        Duration.ofHours(1),
                        later,
                        Optional.of(hotStartingAt(30)))
                .sweep();
        assertThat(cold.store().list("").stream().map(ObjectInfo::key))
                .containsExactlyInAnyOrder(committed, onlyCopy);
    }

    @Test
    void refusingGuardStopsPassesAndSweeps() throws Exception {
        String orphan = ObjectKeys.newKey("", "t", 0, 100, 109);
        cold.store().put(orphan, new byte[] {1});
        MockTime later = new MockTime(System.currentTimeMillis() + Duration.ofDays(1).toMillis());
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        try (Compactor c =
                cold.compactor(
                        hotStartingAt(0),
                        Optional.empty(),
                        Map.of("offload.tmp.dir", tmp.toString()),
                        later)) {
            CatalogGuard wrongId =
                    new CatalogGuard(cold.catalog(), UUID.randomUUID(), later::milliseconds);
            c.setGuard(wrongId);
            PassResult r = c.runOnce();
            assertThat(r.failedPartitions()).isEqualTo(1);
            assertThat(r.objects()).isZero();
            assertThat(c.sweepOrphans().deleted()).isZero();
            assertThat(cold.store().list("")).hasSize(1);
            assertThat(wrongId.refusals()).isEqualTo(2);

            c.setGuard(new CatalogGuard(cold.catalog(), cold.catalog().id(), later::milliseconds));
            assertThat(c.sweepOrphans().deleted()).isEqualTo(1); // hot holds 100..109
        }
    }
}
