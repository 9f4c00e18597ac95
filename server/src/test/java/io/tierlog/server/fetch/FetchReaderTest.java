package io.tierlog.server.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * Reads that complete later (cold partitions) run at the same time, so a fetch waits for the
 * slowest, not for the sum: with a stuck object store each cold read ends at its own deadline, and
 * a fetch of several such partitions must still be answered inside the client's timeout.
 */
class FetchReaderTest {
    private static final String TOPIC = "t";

    /** Partitions below 10 answer from futures the test completes; the others at once (hot). */
    private static final class ControlledSource implements FetchSource {
        final Map<Integer, CompletableFuture<PartitionRead>> pending = new ConcurrentHashMap<>();
        final List<Integer> started = new ArrayList<>();

        @Override
        public PartitionRead read(TopicPartition tp, long offset, int maxBytes) {
            return new PartitionRead(records(tp.partition()), 100, 100, 0);
        }

        @Override
        public synchronized CompletionStage<PartitionRead> readAsync(
                TopicPartition tp, long offset, int maxBytes) {
            started.add(tp.partition());
            if (tp.partition() >= 10) {
                return CompletableFuture.completedFuture(read(tp, offset, maxBytes));
            }
            return pending.computeIfAbsent(tp.partition(), p -> new CompletableFuture<>());
        }

        @Override
        public PartitionRead offsets(TopicPartition tp) {
            return PartitionRead.empty(100, 0);
        }
    }

    static MemoryRecords records(int partition) {
        return MemoryRecords.withRecords(
                Compression.NONE, new SimpleRecord(("p" + partition).getBytes()));
    }

    private static FetchReader.Target target(int partition, int maxBytes) {
        return new FetchReader.Target(
                TOPIC,
                Uuid.ZERO_UUID,
                new TopicPartition(TOPIC, partition),
                partition,
                0,
                maxBytes,
                Errors.NONE);
    }

    @Test
    void pendingReadsRunTogetherAndTheResponseKeepsRequestOrder() {
        ControlledSource source = new ControlledSource();
        FetchReader reader =
                new FetchReader(
                        source,
                        List.of(
                                target(0, 1 << 20),
                                target(1, 1 << 20),
                                target(10, 1 << 20),
                                target(2, 1 << 20)),
                        10 << 20,
                        false,
                        false);
        CompletableFuture<FetchReader.Result> result =
                reader.readAsync(Runnable::run, true).toCompletableFuture();

        assertThat(source.started)
                .as("every read started before any cold one completed")
                .containsExactly(0, 1, 10, 2);
        assertThat(result).isNotDone();
        source.pending.get(2).complete(new PartitionRead(records(2), 100, 100, 0));
        source.pending.get(1).completeExceptionally(new KafkaStorageException("timed out"));
        assertThat(result).as("waits for the slowest").isNotDone();
        source.pending.get(0).complete(new PartitionRead(records(0), 100, 100, 0));

        FetchReader.Result r = result.join();
        List<PartitionData> parts = r.response().responses().get(0).partitions();
        assertThat(parts).extracting(PartitionData::partitionIndex).containsExactly(0, 1, 10, 2);
        assertThat(parts.get(1).errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
        assertThat(r.hasError()).isTrue();
        for (int i : new int[] {0, 2, 3}) {
            assertThat(parts.get(i).records().sizeInBytes()).isPositive();
        }
    }

    @Test
    void aPendingReadsBudgetIsSetAsideFromTheResponse() {
        ControlledSource source = new ControlledSource();
        int partitionMax = records(0).sizeInBytes();
        FetchReader reader =
                new FetchReader(
                        source,
                        List.of(target(0, partitionMax), target(10, partitionMax)),
                        partitionMax, // room for one partition only
                        false,
                        false);
        CompletableFuture<FetchReader.Result> result =
                reader.readAsync(Runnable::run, true).toCompletableFuture();
        assertThat(source.started)
                .as("no budget left for the hot partition while the cold read is pending")
                .containsExactly(0);
        source.pending.get(0).complete(new PartitionRead(records(0), 100, 100, 0));
        FetchReader.Result r = result.join();
        assertThat(r.bytes()).isEqualTo(partitionMax);
    }

    /** A source whose reads name two aborted transactions, out of order, with LSO 40 < HW 100. */
    private static final class TxnSource implements FetchSource {
        final List<io.tierlog.engine.Isolation> asked = new ArrayList<>();

        @Override
        public PartitionRead read(TopicPartition tp, long offset, int maxBytes) {
            throw new AssertionError("the isolation-aware read is used");
        }

        @Override
        public PartitionRead read(
                TopicPartition tp, long offset, int maxBytes, io.tierlog.engine.Isolation i) {
            asked.add(i);
            return new PartitionRead(
                    records(tp.partition()),
                    100,
                    40,
                    0,
                    i == io.tierlog.engine.Isolation.READ_COMMITTED
                            ? List.of(
                                    new io.tierlog.engine.AbortedTransaction(9, 30),
                                    new io.tierlog.engine.AbortedTransaction(8, 10))
                            : List.of());
        }

        @Override
        public PartitionRead offsets(TopicPartition tp) {
            return PartitionRead.empty(100, 40, 0);
        }
    }

    @Test
    void readCommittedCarriesTheAbortedTransactionsByFirstOffsetAndTheRealLastStableOffset() {
        TxnSource source = new TxnSource();
        PartitionData committed =
                new FetchReader(source, List.of(target(0, 1 << 20)), 1 << 20, true, false)
                        .read()
                        .response()
                        .responses()
                        .get(0)
                        .partitions()
                        .get(0);
        assertThat(committed.lastStableOffset()).isEqualTo(40);
        assertThat(committed.highWatermark()).isEqualTo(100);
        assertThat(committed.abortedTransactions())
                .extracting(a -> a.producerId() + "@" + a.firstOffset())
                .containsExactly("8@10", "9@30");

        PartitionData uncommitted =
                new FetchReader(source, List.of(target(0, 1 << 20)), 1 << 20, false, false)
                        .read()
                        .response()
                        .responses()
                        .get(0)
                        .partitions()
                        .get(0);
        assertThat(uncommitted.lastStableOffset())
                .as("the real LSO for read_uncommitted too")
                .isEqualTo(40);
        assertThat(uncommitted.abortedTransactions()).isNull();
        assertThat(source.asked)
                .containsExactly(
                        io.tierlog.engine.Isolation.READ_COMMITTED,
                        io.tierlog.engine.Isolation.READ_UNCOMMITTED);
    }

    @Test
    void aPartitionWhoseRecordsDoNotFitGetsNoAbortedList() {
        TxnSource source = new TxnSource();
        int size = records(0).sizeInBytes();
        List<PartitionData> parts =
                new FetchReader(
                                source,
                                List.of(target(10, size), target(11, size)),
                                size + size / 2, // the second partition's records do not fit
                                true,
                                false)
                        .read()
                        .response()
                        .responses()
                        .get(0)
                        .partitions();
        assertThat(parts.get(0).abortedTransactions()).hasSize(2);
        assertThat(parts.get(1).records().sizeInBytes()).isZero();
        assertThat(parts.get(1).abortedTransactions()).isEmpty();
    }
}
