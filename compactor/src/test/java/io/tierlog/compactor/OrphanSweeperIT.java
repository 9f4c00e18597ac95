package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.common.MockTime;
import io.tierlog.compactor.testing.ColdTierFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Only unreferenced, old, own-layout objects under the own prefix are swept. */
class OrphanSweeperIT {
    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        cold.catalog().createTopic("t", 1, Map.of());
    }

    @Test
    void unreferencedObjectsOlderThanTheGraceAreDeletedAndNothingElse() throws Exception {
        String committed = ObjectKeys.newKey("prod", "t", 0, 0, 9);
        String orphan = ObjectKeys.newKey("prod", "t", 0, 0, 9);
        String otherCluster = ObjectKeys.newKey("staging", "t", 0, 0, 9);
        String notOurs = "prod/t/0/readme.txt";
        for (String k : new String[] {committed, orphan, otherCluster, notOurs}) {
            cold.store().put(k, new byte[] {1, 2, 3});
        }
        cold.catalog().commit(new ColdObject("t", 0, 0, 9, 0, 0, 10, 3, committed, Instant.now()));

        MockTime now = new MockTime(System.currentTimeMillis());
        OrphanSweeper young =
                new OrphanSweeper(cold.catalog(), cold.store(), "prod", Duration.ofHours(1), now);
        OrphanSweeper.SweepResult r = young.sweep();
        assertThat(r.orphans()).isEqualTo(1);
        assertThat(r.deleted()).as("within the grace period").isZero();

        now.advance(Duration.ofHours(2).toMillis());
        r = young.sweep();
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(r.bytesDeleted()).isEqualTo(3);
        assertThat(cold.store().list("").stream().map(ObjectInfo::key))
                .containsExactlyInAnyOrder(committed, otherCluster, notOurs);
    }

    @Test
    void objectsOfADeletedTopicBecomeOrphans() throws Exception {
        String key = ObjectKeys.newKey("", "t", 0, 0, 9);
        cold.store().put(key, new byte[] {1});
        cold.catalog().commit(new ColdObject("t", 0, 0, 9, 0, 0, 10, 1, key, Instant.now()));
        cold.catalog().deleteTopic("t");
        MockTime later = new MockTime(System.currentTimeMillis() + Duration.ofDays(1).toMillis());
        new OrphanSweeper(cold.catalog(), cold.store(), "", Duration.ofHours(1), later).sweep();
        assertThat(cold.store().list("")).isEmpty();
    }
}
