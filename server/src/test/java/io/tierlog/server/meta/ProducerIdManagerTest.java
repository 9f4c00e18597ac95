package io.tierlog.server.meta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Producer ids are never handed out twice, even across restarts that lose the in-memory state. */
class ProducerIdManagerTest {
    @TempDir Path dir;

    @Test
    void idsAreUniqueAcrossReopens() throws Exception {
        Set<Long> seen = new HashSet<>();
        for (int run = 0; run < 5; run++) {
            ProducerIdManager m = ProducerIdManager.open(dir, 3);
            for (int i = 0; i < run + 1; i++) {
                long id = m.nextProducerId();
                assertThat(seen.add(id)).as("id %d reused", id).isTrue();
                assertThat(m.wasIssued(id)).isTrue();
            }
        }
        assertThat(ProducerIdManager.open(dir, 3).wasIssued(Long.MAX_VALUE - 1)).isFalse();
    }

    @Test
    void aDamagedReservationFileNeitherStopsStartupNorLetsAnIdBeReused() throws Exception {
        ProducerIdManager m = ProducerIdManager.open(dir, 1000);
        Set<Long> before = new HashSet<>();
        for (int i = 0; i < 2500; i++) {
            before.add(m.nextProducerId());
        }
        Files.writeString(dir.resolve("producer-ids.properties"), "next.block.start=\u0000garbage");
        ProducerIdManager reopened = ProducerIdManager.open(dir, 1000);
        long next = reopened.nextProducerId();
        assertThat(next).as("first id after the damage").isGreaterThan(1L << 40);
        assertThat(before).doesNotContain(next);
        ProducerIdManager again = ProducerIdManager.open(dir, 1000);
        assertThat(again.nextProducerId())
                .as("the new reservation was persisted")
                .isGreaterThan(next);
    }
}
