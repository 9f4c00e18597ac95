package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CreatePartitions interrupted after its commit point (the catalog's new partition count) and
 * before the new partition folders exist, as a crash there leaves it: the next open creates the
 * missing partitions, which then take appends; the old partitions keep their records.
 */
class AddPartitionsInterruptedTest {
    @TempDir Path dir;

    @Test
    void partitionsCommittedInTheCatalogButNeverCreatedOnDiskExistAfterTheNextOpen()
            throws Exception {
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            log.topicRegistry().create("grow", 1, Map.of(), false);
            log.append(new TopicPartition("grow", 0), TopicRegistryTest.batch("kept"));
            // the state a crash right after the commit point leaves: catalog says 3, disk has 1
            log.catalog().ensurePartitions("grow", 3);
        }
        assertThat(Files.exists(dir.resolve("data").resolve("log").resolve("grow-2")))
                .as("no folder yet")
                .isFalse();
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            assertThat(log.topicRegistry().topic("grow").orElseThrow().partitions()).isEqualTo(3);
            TopicPartition p2 = new TopicPartition("grow", 2);
            assertThat(log.latestOffset(p2)).isZero();
            log.append(p2, TopicRegistryTest.batch("new"));
            assertThat(log.latestOffset(p2)).isEqualTo(1);
            assertThat(log.latestOffset(new TopicPartition("grow", 0))).isEqualTo(1);
        }
    }
}
