package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.common.Time;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.FaultyCatalog;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the compactor does with each kind of commit failure: known failures delete the uploaded
 * object, unknown outcomes never do, and retries converge on exactly one committed copy.
 */
class CommitOutcomeIT {
    static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;
    FaultyCatalog catalog;
    SegmentFiles log;

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        catalog = new FaultyCatalog(cold.catalog());
        log = new SegmentFiles(dir.resolve("log"), 7);
        log.append(TP, 5, 10, 100);
        log.roll(TP);
    }

    Compactor compactor(String retryTimeout) throws Exception {
        return Compactor.create(
                log,
                Optional.of(log.dir()),
                catalog,
                cold.store(),
                cold.config(
                        Map.of(
                                CompactorOptions.OFFLOAD_TMP_DIR.key(),
                                dir.resolve("tmp").toString(),
                                CompactorOptions.OFFLOAD_RETRY_BACKOFF_MS.key(),
                                "5ms",
                                CompactorOptions.OFFLOAD_RETRY_BACKOFF_MAX_MS.key(),
                                "20ms",
                                CompactorOptions.OFFLOAD_RETRY_TIMEOUT_MS.key(),
                                retryTimeout)),
                Time.SYSTEM);
    }

    List<String> bucketKeys() throws Exception {
        return cold.store().list("").stream().map(ObjectInfo::key).toList();
    }

    List<String> committedKeys() {
        return cold.catalog().objects("t", 0).stream().map(ColdObject::key).toList();
    }

    /**
     * One pass, with retries within 5s, ends without a failed partition, and the bucket holds
     * exactly the one object the catalog references: no duplicate commit, no orphan.
     */
    private void passCommitsExactlyOneObject() throws Exception {
        try (Compactor c = compactor("5s")) {
            assertThat(c.runOnce().failedPartitions()).isZero();
        }
        assertThat(committedKeys()).hasSize(1);
        assertThat(bucketKeys()).isEqualTo(committedKeys());
    }

    @Test
    void aLostAcknowledgementIsRetriedAndFoundAlreadyCommitted() throws Exception {
        catalog.unknownButCommitted.set(1);
        passCommitsExactlyOneObject();
        assertThat(catalog.commitCalls.get()).isEqualTo(2);
    }

    @Test
    void unknownOutcomesThenSuccessCommitOnce() throws Exception {
        catalog.unknownNotCommitted.set(3);
        passCommitsExactlyOneObject();
    }

    @Test
    void anOutcomeThatStaysUnknownLeavesTheObjectForTheSweeper() throws Exception {
        catalog.unknownNotCommitted.set(Integer.MAX_VALUE);
        try (Compactor c = compactor("200ms")) {
            assertThat(c.runOnce().failedPartitions()).isEqualTo(1);
            assertThat(c.lag().get(TP).lastError()).isPresent();
        }
        assertThat(committedKeys()).isEmpty();
        assertThat(bucketKeys()).hasSize(1); // never deleted on an unknown outcome
        catalog.unknownNotCommitted.set(0);
        try (Compactor c = compactor("5s")) {
            c.runOnce();
        }
        // The retry wrote a new object; the old one is an orphan, not referenced.
        assertThat(committedKeys()).hasSize(1);
        assertThat(bucketKeys()).hasSize(2).containsAll(committedKeys());
    }

    @Test
    void failuresBeforeTheCommitPointAreRetried() throws Exception {
        catalog.failBeforeCommit.set(3);
        passCommitsExactlyOneObject();
    }

    @Test
    void aKnownFailureThatPersistsDeletesTheUploadedObject() throws Exception {
        catalog.failBeforeCommit.set(Integer.MAX_VALUE);
        try (Compactor c = compactor("200ms")) {
            assertThat(c.runOnce().failedPartitions()).isEqualTo(1);
        }
        assertThat(committedKeys()).isEmpty();
        assertThat(bucketKeys()).isEmpty();
    }

    @Test
    void aRefusedCommitDeletesTheObjectWithoutRetrying() throws Exception {
        catalog.refuse.set(1);
        try (Compactor c = compactor("5s")) {
            assertThat(c.runOnce().failedPartitions()).isEqualTo(1);
        }
        assertThat(catalog.commitCalls.get()).isEqualTo(1);
        assertThat(bucketKeys()).isEmpty();
    }
}
