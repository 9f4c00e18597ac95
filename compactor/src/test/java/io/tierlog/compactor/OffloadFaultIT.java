package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.testing.FaultInjectingProxy;
import io.tierlog.common.Config;
import io.tierlog.common.MockTime;
import io.tierlog.common.Time;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offload loop behind a fault-injecting HTTP proxy in front of s3proxy: 500/503 answers, slow
 * responses past the request timeout, and an endpoint that is down. Offload retries with backoff,
 * shows the lag while it cannot progress, never touches the source, and catches up with nothing
 * lost once the store recovers.
 */
class OffloadFaultIT {
    static final List<TopicPartition> PARTITIONS =
            List.of(new TopicPartition("f", 0), new TopicPartition("f", 1));

    @TempDir Path dir;
    ColdTierFixture cold;
    FaultInjectingProxy proxy;
    ObjectStore store;
    Catalog catalog;
    SegmentFiles log;

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        proxy = cold.proxy();
        store =
                cold.openStore(
                        proxy.endpoint(),
                        Map.of(
                                "s3.request.timeout.ms", "1s",
                                "s3.retry.max.attempts", "2",
                                "s3.retry.backoff.ms", "10ms"));
        catalog = cold.catalog();
        log = new SegmentFiles(dir.resolve("log"), 3);
    }

    @AfterEach
    void tearDown() throws Exception {
        store.close();
        cold.close();
    }

    Compactor compactor(String retryTimeout) throws Exception {
        Config config =
                Config.of(
                        Map.of(
                                "offload.tmp.dir", dir.resolve("tmp").toString(),
                                "offload.target.object.bytes", "16KiB",
                                "offload.threads", "2",
                                "offload.retry.backoff.ms", "20ms",
                                "offload.retry.backoff.max.ms", "200ms",
                                "offload.retry.timeout.ms", retryTimeout));
        return Compactor.create(log, Optional.of(log.dir()), catalog, store, config, Time.SYSTEM);
    }

    void addSegments(int n) throws Exception {
        for (TopicPartition tp : PARTITIONS) {
            for (int i = 0; i < n; i++) {
                log.append(tp, 5, 20, 80);
                log.roll(tp);
            }
        }
    }

    void assertEverythingOffloadedOnce() throws Exception {
        for (TopicPartition tp : PARTITIONS) {
            log.assertOffloadedOnce(tp, catalog, store);
        }
    }

    @Test
    void errorsThrottlingAndSlowResponsesAreRetriedUntilEverythingIsOffloaded() throws Exception {
        addSegments(6);
        Map<Path, byte[]> source = CompactorIT.snapshot(log.dir());
        try (Compactor c = compactor("60s")) {
            proxy.failNext(25, 503);
            proxy.failEvery(4, 500);
            proxy.delayNext(3, Duration.ofMillis(1500)); // past s3.request.timeout.ms
            PassResult r = c.runOnce();
            assertThat(r.failedPartitions()).isZero();
            proxy.heal();
        }
        assertThat(proxy.injectedFailures()).isGreaterThanOrEqualTo(25);
        assertEverythingOffloadedOnce();
        assertThat(CompactorIT.snapshot(log.dir())).usingRecursiveComparison().isEqualTo(source);
        sweepAndCheckBucketMatchesCatalog();
    }

    @Test
    void anEndpointThatIsDownShowsAsLagAndOffloadCatchesUpWhenItReturns() throws Exception {
        addSegments(3);
        try (Compactor c = compactor("500ms")) {
            proxy.goDown();
            PassResult down = c.runOnce();
            assertThat(down.failedPartitions()).isEqualTo(PARTITIONS.size());
            assertThat(down.objects()).isZero();
            for (TopicPartition tp : PARTITIONS) {
                PartitionLag lag = c.lag().get(tp);
                assertThat(lag.lastError()).isPresent();
                assertThat(lag.pendingBytes()).isPositive();
                assertThat(lag.pendingOffsets()).isEqualTo(log.nextOffset(tp));
            }
            assertThat(c.backlogBytes()).isPositive();

            addSegments(2); // the log keeps growing meanwhile
            proxy.comeUp();
            PassResult up = c.runOnce();
            assertThat(up.failedPartitions()).isZero();
            assertThat(c.backlogBytes()).isZero();
            assertThat(c.lag().get(PARTITIONS.get(0)).lastError()).isEmpty();
        }
        assertEverythingOffloadedOnce();
        sweepAndCheckBucketMatchesCatalog();
    }

    void sweepAndCheckBucketMatchesCatalog() throws Exception {
        MockTime later = new MockTime(System.currentTimeMillis() + Duration.ofHours(2).toMillis());
        new OrphanSweeper(catalog, store, "", Duration.ofHours(1), later).sweep();
        assertThat(store.list("").stream().map(ObjectInfo::key).sorted().toList())
                .isEqualTo(catalog.allObjectKeys().stream().sorted().toList());
    }
}
