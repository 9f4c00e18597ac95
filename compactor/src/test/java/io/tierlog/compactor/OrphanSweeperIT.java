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
import java.util.List;
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
    void aReplacedObjectIsDeletedOnlyAGracePeriodAfterItsRetirementThenForgotten()
            throws Exception {
        String a = ObjectKeys.newKey("prod", "t", 0, 0, 9);
        String b = ObjectKeys.newKey("prod", "t", 0, 10, 19);
        String compacted = ObjectKeys.newKey("prod", "t", 0, 0, 19);
        for (String k : new String[] {a, b, compacted}) {
            cold.store().put(k, new byte[] {1, 2, 3, 4});
        }
        cold.catalog().commit(new ColdObject("t", 0, 0, 9, 0, 0, 10, 4, a, Instant.now()));
        cold.catalog().commit(new ColdObject("t", 0, 10, 19, 0, 0, 10, 4, b, Instant.now()));
        // The originals were uploaded a day before the compaction replaced them.
        MockTime now = new MockTime(System.currentTimeMillis() + Duration.ofDays(1).toMillis());
        ColdObject c = new ColdObject("t", 0, 0, 19, 0, 0, 12, 4, compacted, Instant.now());
        cold.catalog().replaceObjects("t", 0, List.of(a, b), c, 20, now.milliseconds());
        OrphanSweeper sweeper =
                new OrphanSweeper(cold.catalog(), cold.store(), "prod", Duration.ofHours(1), now);

        OrphanSweeper.SweepResult r = sweeper.sweep();
        assertThat(r.orphans()).as("retired objects are not orphans").isZero();
        assertThat(r.retiredDeleted()).as("within the grace period since retirement").isZero();
        assertThat(keys()).containsExactlyInAnyOrder(a, b, compacted);

        now.advance(Duration.ofMinutes(59).toMillis());
        assertThat(sweeper.sweep().retiredDeleted()).isZero();
        now.advance(Duration.ofMinutes(1).toMillis());
        r = sweeper.sweep();
        assertThat(r.retiredDeleted()).isEqualTo(2);
        assertThat(r.bytesDeleted()).isEqualTo(8);
        assertThat(keys()).containsExactly(compacted);
        assertThat(cold.catalog().retiredObjects(Long.MAX_VALUE)).isEmpty();
        assertThat(sweeper.sweep().retiredDeleted()).isZero();
    }

    @Test
    void aSweepKilledBetweenDeletingARetiredObjectAndForgettingItFinishesTheJobNextTime()
            throws Exception {
        String a = ObjectKeys.newKey("", "t", 0, 0, 9);
        String compacted = ObjectKeys.newKey("", "t", 0, 0, 9);
        String otherCluster = ObjectKeys.newKey("staging", "t", 0, 10, 19);
        cold.store().put(a, new byte[] {1});
        cold.store().put(compacted, new byte[] {2});
        cold.store().put(otherCluster, new byte[] {3});
        cold.catalog().commit(new ColdObject("t", 0, 0, 9, 0, 0, 10, 1, a, Instant.now()));
        MockTime now = new MockTime(System.currentTimeMillis());
        ColdObject c = new ColdObject("t", 0, 0, 9, 0, 0, 10, 1, compacted, Instant.now());
        cold.catalog().replaceObjects("t", 0, List.of(a), c, 10, now.milliseconds());
        cold.store().delete(a); // deleted, then the process died before forgetRetired
        now.advance(Duration.ofHours(2).toMillis());
        OrphanSweeper.SweepResult r =
                new OrphanSweeper(cold.catalog(), cold.store(), "", Duration.ofHours(1), now)
                        .sweep();
        assertThat(r.retiredDeleted()).isEqualTo(1);
        assertThat(cold.catalog().retiredObjects(Long.MAX_VALUE)).isEmpty();
        assertThat(keys()).containsExactlyInAnyOrder(compacted, otherCluster);
    }

    private List<String> keys() throws Exception {
        return cold.store().list("").stream().map(ObjectInfo::key).toList();
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
