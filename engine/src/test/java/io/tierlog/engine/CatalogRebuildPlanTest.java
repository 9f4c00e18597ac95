package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.ObjectFooter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** How {@code catalog rebuild} chains the objects it found in the bucket. */
class CatalogRebuildPlanTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final UUID V_ID = UUID.randomUUID();

    private static BucketSurvey.Found obj(String key, long first, long last) {
        return new BucketSurvey.Found(
                new ObjectFooter(key, 100, "t", 0, first, last, 1, 2, last - first + 1, 1),
                Instant.EPOCH);
    }

    private static BucketSurvey.Found compacted(String key, long first, long last) {
        return new BucketSurvey.Found(
                new ObjectFooter(key, 50, "t", 0, first, last, 1, 2, 1, 1, true), Instant.EPOCH);
    }

    private static List<String> keys(List<BucketSurvey.Found> l) {
        return l.stream().map(BucketSurvey.Found::key).toList();
    }

    private static BucketSurvey survey(BucketSurvey.Found... found) {
        List<BucketSurvey.Found> l = new ArrayList<>(List.of(found));
        l.sort(BucketSurvey.BY_RANGE_THEN_KEY);
        return new BucketSurvey(Map.of(TP, l), List.of(), found.length);
    }

    @Test
    void contiguousObjectsMakeOneChainEndingAtTheColdHighWatermark() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(obj("b", 100, 199), obj("a", 0, 99), obj("c", 200, 249)),
                        Map.of(TP, Optional.of(150L)),
                        Map.of());
        assertThat(p.problems()).isEmpty();
        assertThat(p.parts()).hasSize(1);
        assertThat(p.parts().get(0).chain())
                .extracting(BucketSurvey.Found::key)
                .containsExactly("a", "b", "c");
        assertThat(p.parts().get(0).coldHighWatermark()).hasValue(250L);
        assertThat(p.notes()).noneMatch(n -> n.startsWith("GAP"));
    }

    @Test
    void exactDuplicatesKeepTheLowestKeyAndAreReported() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(obj("a", 0, 99), obj("z-dup", 100, 199), obj("b", 100, 199)),
                        Map.of(),
                        Map.of());
        assertThat(p.problems()).isEmpty();
        assertThat(p.parts().get(0).chain())
                .extracting(BucketSurvey.Found::key)
                .containsExactly("a", "b");
        assertThat(p.notes()).anyMatch(n -> n.contains("duplicate z-dup") && n.contains("b"));
    }

    @Test
    void aCompactedObjectIsChosenOverTheOriginalsItReplacedWhichBecomeRetired() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(
                                obj("a", 0, 99),
                                obj("b", 100, 199),
                                compacted("c", 0, 199),
                                obj("d", 200, 249)),
                        Map.of(),
                        Map.of());
        assertThat(p.problems()).isEmpty();
        CatalogRebuild.PartitionPlan pp = p.parts().get(0);
        assertThat(keys(pp.chain())).containsExactly("c", "d");
        assertThat(keys(pp.retired())).containsExactlyInAnyOrder("a", "b");
        assertThat(pp.cleanedOffset()).isEqualTo(200);
        assertThat(pp.coldHighWatermark()).hasValue(250L);
        assertThat(pp.leftOut()).isEmpty();
    }

    @Test
    void compactionsOfCompactedObjectsAndOriginalsTheSweeperThinnedOutStillGiveOneChain() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(
                                // a (0..9) already deleted by the sweeper
                                obj("b", 10, 19),
                                compacted("c1", 0, 19),
                                obj("e", 20, 29),
                                compacted("c2", 0, 29),
                                obj("f", 30, 39),
                                obj("g", 40, 49),
                                compacted("g-compacted", 40, 49)),
                        Map.of(),
                        Map.of());
        assertThat(p.problems()).isEmpty();
        CatalogRebuild.PartitionPlan pp = p.parts().get(0);
        assertThat(keys(pp.chain())).containsExactly("c2", "f", "g-compacted");
        assertThat(keys(pp.retired()))
                .as("a one-object run compacted has the original's range: retired, no duplicate")
                .containsExactlyInAnyOrder("b", "c1", "e", "g");
        assertThat(pp.cleanedOffset()).isEqualTo(50);
    }

    @Test
    void aCompactedObjectThatNoChainCanUseIsAnOrphanNotAReasonToRefuse() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(obj("a", 0, 99), obj("b", 100, 199), compacted("c", 0, 149)),
                        Map.of(),
                        Map.of());
        assertThat(p.problems()).isEmpty();
        assertThat(keys(p.parts().get(0).chain())).containsExactly("a", "b");
        assertThat(p.parts().get(0).retired()).isEmpty();
        assertThat(p.notes()).anyMatch(n -> n.contains("object c") && n.contains("orphan"));
    }

    @Test
    void aPartialOverlapAndAGapInOnePartitionAreBothReported() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(obj("a", 0, 99), obj("b", 50, 149), obj("d", 200, 299)),
                        Map.of(),
                        Map.of());
        assertThat(p.problems()).hasSize(2);
        assertThat(p.problems()).anyMatch(m -> m.contains("partial overlap") && m.contains("b"));
        assertThat(p.problems()).anyMatch(m -> m.contains("gap") && m.contains("[150, 200)"));
    }

    @Test
    void partialOverlapIsRefused() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(survey(obj("a", 0, 99), obj("b", 50, 149)), Map.of(), Map.of());
        assertThat(p.problems())
                .singleElement()
                .asString()
                .contains("partial overlap")
                .contains("b");
    }

    @Test
    void gapBetweenObjectsIsRefused() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(obj("a", 0, 99), obj("b", 120, 149)), Map.of(), Map.of());
        assertThat(p.problems()).singleElement().asString().contains("[100, 120)");
    }

    @Test
    void hotLogStartAboveTheColdTierIsReportedAsAGap() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(obj("a", 0, 99)), Map.of(TP, Optional.of(180L)), Map.of());
        assertThat(p.problems()).isEmpty();
        assertThat(p.notes()).anyMatch(n -> n.startsWith("GAP") && n.contains("[100, 180)"));
    }

    @Test
    void twoHintsNamingOneIdGiveItToTheFirstAndANewIdToTheOther() {
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(),
                        Map.of(),
                        Map.of(
                                "v", new TopicHints.Hint("v", V_ID, 1, Map.of()),
                                "w", new TopicHints.Hint("w", V_ID, 1, Map.of())));
        assertThat(p.ids()).hasSize(1).containsValue(V_ID);
        assertThat(p.notes()).anyMatch(n -> n.contains("gets a new id"));
    }

    @Test
    void partitionCountsComeFromObjectsHotFoldersAndTopicFiles() {
        TopicPartition hot3 = new TopicPartition("t", 3);
        TopicPartition other = new TopicPartition("u", 1);
        CatalogRebuild.Plan p =
                CatalogRebuild.plan(
                        survey(obj("a", 0, 99)),
                        Map.of(hot3, Optional.empty(), other, Optional.of(0L)),
                        Map.of(
                                "v",
                                new TopicHints.Hint("v", V_ID, 6, Map.of("retention.ms", "1000"))));
        assertThat(p.partitions())
                .containsEntry("t", 4)
                .containsEntry("u", 2)
                .containsEntry("v", 6);
        assertThat(p.configs()).containsEntry("v", Map.of("retention.ms", "1000"));
        assertThat(p.ids()).containsExactly(Map.entry("v", V_ID));
    }
}
