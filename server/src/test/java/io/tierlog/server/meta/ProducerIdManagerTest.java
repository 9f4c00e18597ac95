package io.tierlog.server.meta;

import static org.assertj.core.api.Assertions.assertThat;

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
}
