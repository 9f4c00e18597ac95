package io.tierlog.server.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.engine.TieredLog;
import io.tierlog.engine.Transactions;
import io.tierlog.engine.TxnVerification;
import io.tierlog.server.HandlerTestBase;
import io.tierlog.server.ServerTestKit;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fetch and ListOffsets by isolation level, on a partition holding (offsets) 0 plain "a" at 1000, 1
 * aborted "x" of producer 7, 2 its abort marker, 3 committed "c" of producer 8, 4 its commit
 * marker, 5 open "o" of producer 9 and 6 plain "z", both later than the markers (which carry the
 * server's clock, and which a search by time finds too, as in Kafka): read_uncommitted sees every
 * data record up to the high watermark 7 with no aborted list; read_committed stops at the last
 * stable offset 5 and names producer 7's aborted transaction from offset 1; both report the real
 * last stable offset. ListOffsets: latest is the high watermark, or the LSO for read_committed; a
 * search by time finding a record at or above the LSO answers -1 for read_committed, as Kafka's
 * {@code lastFetchableOffset} rule.
 */
class IsolationTest extends HandlerTestBase {
    private static final short FETCH_V12 = 12;
    private static final short LIST_V8 = 8;
    private static final TopicPartition TP = new TopicPartition("txn", 0);

    /** After the markers' timestamps (the server's clock when written). */
    private long late;

    @BeforeEach
    void history() throws Exception {
        kit.createTopic(TP.topic(), 1);
        late = kit.time().milliseconds() + 10_000;
        TieredLog e = kit.engine();
        Transactions t = e.transactions();
        e.append(TP, plain("a", 1000));
        txn(e, 7, "x", 1000);
        t.appendMarker(TP, 7, (short) 0, 0, false, 1);
        txn(e, 8, "c", 1000);
        t.appendMarker(TP, 8, (short) 0, 0, true, 1);
        txn(e, 9, "o", late);
        e.append(TP, plain("z", late + 1000));
        assertThat(e.latestOffset(TP)).isEqualTo(7);
        assertThat(t.lastStableOffset(TP)).isEqualTo(5);
    }

    @Test
    void readUncommittedSeesEverythingUpToTheHighWatermarkWithNoAbortedList() {
        PartitionData pd = fetch(0, (byte) 0);
        assertThat(pd.highWatermark()).isEqualTo(7);
        assertThat(pd.lastStableOffset()).as("the real LSO, whatever the isolation").isEqualTo(5);
        assertThat(pd.abortedTransactions()).as("null for isolation 0, as Kafka").isNull();
        assertThat(values(pd)).containsExactly("0:a", "1:x", "3:c", "5:o", "6:z");
    }

    @Test
    void readCommittedStopsAtTheLastStableOffsetAndNamesTheAbortedTransactions() {
        PartitionData pd = fetch(0, (byte) 1);
        assertThat(pd.highWatermark()).isEqualTo(7);
        assertThat(pd.lastStableOffset()).isEqualTo(5);
        assertThat(values(pd)).containsExactly("0:a", "1:x", "3:c");
        assertThat(pd.abortedTransactions())
                .extracting(
                        FetchResponseData.AbortedTransaction::producerId,
                        FetchResponseData.AbortedTransaction::firstOffset)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(7L, 1L));

        PartitionData atLso = fetch(5, (byte) 1);
        assertThat(atLso.records().sizeInBytes()).as("nothing readable at the LSO").isZero();
        assertThat(atLso.abortedTransactions()).isEmpty();
        assertThat(atLso.errorCode()).isZero();

        PartitionData fromCommitted = fetch(3, (byte) 1);
        assertThat(fromCommitted.abortedTransactions())
                .as("producer 7's transaction ended before offset 3")
                .isEmpty();
    }

    @Test
    void listOffsetsLatestIsTheLastStableOffsetForReadCommitted() {
        assertThat(list(ListOffsetsHandler.LATEST, (byte) 0).offset()).isEqualTo(7);
        assertThat(list(ListOffsetsHandler.LATEST, (byte) 1).offset()).isEqualTo(5);
        assertThat(list(ListOffsetsHandler.EARLIEST, (byte) 1).offset()).isZero();
    }

    @Test
    void aSearchByTimeFindingARecordAtOrAboveTheLastStableOffsetIsMinusOneForReadCommitted() {
        ListOffsetsPartitionResponse uncommitted = list(late, (byte) 0);
        assertThat(uncommitted.offset()).isEqualTo(5);
        assertThat(uncommitted.timestamp()).isEqualTo(late);
        ListOffsetsPartitionResponse committed = list(late, (byte) 1);
        assertThat(committed.errorCode()).isZero();
        assertThat(committed.offset()).isEqualTo(-1);
        assertThat(committed.timestamp()).isEqualTo(-1);
        assertThat(list(1000, (byte) 1).offset()).as("below the LSO: found").isZero();
        assertThat(list(ListOffsetsHandler.MAX_TIMESTAMP, (byte) 0).offset()).isEqualTo(6);
        assertThat(list(ListOffsetsHandler.MAX_TIMESTAMP, (byte) 1).offset())
                .as("the largest timestamp lies above the LSO")
                .isEqualTo(-1);
    }

    private PartitionData fetch(long offset, byte isolation) {
        FetchRequestData req =
                new FetchRequestData()
                        .setMaxWaitMs(0)
                        .setMinBytes(0)
                        .setMaxBytes(1 << 20)
                        .setIsolationLevel(isolation)
                        .setTopics(
                                List.of(
                                        new FetchTopic()
                                                .setTopic(TP.topic())
                                                .setTopicId(Uuid.ZERO_UUID)
                                                .setPartitions(
                                                        List.of(
                                                                new FetchPartition()
                                                                        .setPartition(0)
                                                                        .setFetchOffset(offset)
                                                                        .setPartitionMaxBytes(
                                                                                1 << 20)))));
        FetchResponseData r = kit.call(ApiKeys.FETCH, FETCH_V12, req);
        return r.responses().get(0).partitions().get(0);
    }

    private ListOffsetsPartitionResponse list(long timestamp, byte isolation) {
        ListOffsetsRequestData req =
                new ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setIsolationLevel(isolation)
                        .setTopics(
                                List.of(
                                        new ListOffsetsTopic()
                                                .setName(TP.topic())
                                                .setPartitions(
                                                        List.of(
                                                                new ListOffsetsPartition()
                                                                        .setPartitionIndex(0)
                                                                        .setTimestamp(
                                                                                timestamp)))));
        ListOffsetsResponseData r = kit.call(ApiKeys.LIST_OFFSETS, LIST_V8, req);
        return r.topics().get(0).partitions().get(0);
    }

    private static List<String> values(PartitionData pd) {
        List<String> out = new ArrayList<>();
        for (RecordBatch b : ServerTestKit.inMemory(pd.records()).batches()) {
            if (b.isControlBatch()) {
                continue;
            }
            for (Record r : b) {
                out.add(r.offset() + ":" + StandardCharsets.UTF_8.decode(r.value()));
            }
        }
        return out;
    }

    private static ByteBuffer plain(String value, long ts) {
        return MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(ts, null, value.getBytes(StandardCharsets.UTF_8)))
                .buffer();
    }

    private static void txn(TieredLog e, long pid, String value, long ts) throws Exception {
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        ByteBuffer.allocate(512),
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.NONE,
                        TimestampType.CREATE_TIME,
                        0L,
                        RecordBatch.NO_TIMESTAMP,
                        pid,
                        (short) 0,
                        0,
                        true,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH);
        b.append(new SimpleRecord(ts, null, value.getBytes(StandardCharsets.UTF_8)));
        TxnVerification v = e.transactions().startVerification(TP, pid, 0, (short) 0, false);
        e.append(TP, b.build().buffer(), v);
    }
}
