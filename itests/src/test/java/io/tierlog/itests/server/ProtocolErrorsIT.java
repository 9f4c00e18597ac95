package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact protocol behaviour on bad input and edge cases, over a raw socket: the Kafka error code
 * each case must produce, acks=0, idempotent retries, producer ids across restarts, long-poll
 * wake-up, read_committed offsets, and the connection limit and idle timeout.
 */
class ProtocolErrorsIT {
    private static final short PRODUCE_V = 9;
    private static final short FETCH_V = 12;

    @TempDir Path dir;
    private ServerHarness server;

    @BeforeEach
    void start() throws Exception {
        server =
                new ServerHarness(
                        dir,
                        Map.of(
                                "message.max.bytes", "10000",
                                "max.connections", "20",
                                "auto.create.topics.enable", "true"));
        try (RawClient c = new RawClient(server.port())) {
            CreateTopicsRequestData req = new CreateTopicsRequestData().setTimeoutMs(5000);
            req.topics()
                    .add(
                            new CreateTopicsRequestData.CreatableTopic()
                                    .setName("t")
                                    .setNumPartitions(1)
                                    .setReplicationFactor((short) 1));
            CreateTopicsResponseData r =
                    c.call(ApiKeys.CREATE_TOPICS, (short) 7, req, new CreateTopicsResponseData());
            assertThat(r.topics().find("t").errorCode()).isZero();
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ProduceRequestData produce(
            String topic, int partition, MemoryRecords records, short acks) {
        ProduceRequestData p = new ProduceRequestData().setAcks(acks).setTimeoutMs(5000);
        ProduceRequestData.TopicProduceData t =
                new ProduceRequestData.TopicProduceData().setName(topic);
        t.partitionData()
                .add(
                        new ProduceRequestData.PartitionProduceData()
                                .setIndex(partition)
                                .setRecords(records));
        p.topicData().add(t);
        return p;
    }

    private static ProduceResponseData.PartitionProduceResponse produceOne(
            RawClient c, String topic, int partition, MemoryRecords records) throws Exception {
        ProduceResponseData r =
                c.call(
                        ApiKeys.PRODUCE,
                        PRODUCE_V,
                        produce(topic, partition, records, (short) -1),
                        new ProduceResponseData());
        return r.responses().iterator().next().partitionResponses().get(0);
    }

    private static MemoryRecords records(String... values) {
        SimpleRecord[] rs = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            rs[i] = new SimpleRecord(System.currentTimeMillis(), null, values[i].getBytes());
        }
        return MemoryRecords.withRecords(Compression.NONE, rs);
    }

    private static long latest(RawClient c, String topic) throws Exception {
        ListOffsetsRequestData req = new ListOffsetsRequestData().setReplicaId(-1);
        ListOffsetsRequestData.ListOffsetsTopic t =
                new ListOffsetsRequestData.ListOffsetsTopic().setName(topic);
        t.partitions()
                .add(
                        new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(0)
                                .setTimestamp(-1));
        req.topics().add(t);
        ListOffsetsResponseData r =
                c.call(ApiKeys.LIST_OFFSETS, (short) 7, req, new ListOffsetsResponseData());
        return r.topics().get(0).partitions().get(0).offset();
    }

    private static FetchRequestData fetch(
            String topic, long offset, int maxWaitMs, byte isolation) {
        FetchRequestData f =
                new FetchRequestData()
                        .setMaxWaitMs(maxWaitMs)
                        .setMinBytes(1)
                        .setMaxBytes(1 << 20)
                        .setIsolationLevel(isolation);
        FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopic(topic);
        t.partitions()
                .add(
                        new FetchRequestData.FetchPartition()
                                .setPartition(0)
                                .setFetchOffset(offset)
                                .setPartitionMaxBytes(1 << 20));
        f.topics().add(t);
        return f;
    }

    @Test
    void corruptBatchIsRefusedWithCorruptMessageAndNothingIsStored() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            MemoryRecords recs = records("a", "b");
            ByteBuffer b = recs.buffer();
            int last = b.limit() - 1;
            b.put(last, (byte) (b.get(last) ^ 0x5a)); // inside the CRC-covered part
            assertThat(produceOne(c, "t", 0, recs).errorCode())
                    .isEqualTo(Errors.CORRUPT_MESSAGE.code());
            assertThat(latest(c, "t")).isZero();
        }
    }

    @Test
    void batchLargerThanMessageMaxBytesIsRefusedWithMessageTooLarge() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            String big = "x".repeat(20_000);
            assertThat(produceOne(c, "t", 0, records(big)).errorCode())
                    .isEqualTo(Errors.MESSAGE_TOO_LARGE.code());
            assertThat(latest(c, "t")).isZero();
        }
    }

    @Test
    void badTopicNamesGetInvalidTopicExceptionAndUnknownOnesUnknownTopicOrPartition()
            throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            MetadataRequestData m = new MetadataRequestData().setAllowAutoTopicCreation(true);
            m.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("bad name!"));
            MetadataResponseData mr =
                    c.call(ApiKeys.METADATA, (short) 12, m, new MetadataResponseData());
            assertThat(mr.topics().find("bad name!").errorCode())
                    .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
            assertThat(produceOne(c, "bad name!", 0, records("a")).errorCode())
                    .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
            assertThat(produceOne(c, "missing", 0, records("a")).errorCode())
                    .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            assertThat(produceOne(c, "t", 5, records("a")).errorCode())
                    .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            FetchResponseData fr =
                    c.call(
                            ApiKeys.FETCH,
                            FETCH_V,
                            fetch("missing", 0, 0, (byte) 0),
                            new FetchResponseData());
            assertThat(fr.responses().get(0).partitions().get(0).errorCode())
                    .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            FetchRequestData byId = fetch("ignored", 0, 0, (byte) 0);
            byId.topics().get(0).setTopicId(Uuid.randomUuid());
            FetchResponseData fr13 =
                    c.call(ApiKeys.FETCH, (short) 13, byId, new FetchResponseData());
            assertThat(fr13.responses().get(0).partitions().get(0).errorCode())
                    .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
            // Auto-creation through Metadata makes a usable topic at once.
            MetadataRequestData auto = new MetadataRequestData().setAllowAutoTopicCreation(true);
            auto.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("auto"));
            MetadataResponseData ar =
                    c.call(ApiKeys.METADATA, (short) 12, auto, new MetadataResponseData());
            assertThat(ar.topics().find("auto").errorCode()).isZero();
            assertThat(ar.topics().find("auto").topicId()).isNotEqualTo(Uuid.ZERO_UUID);
            assertThat(produceOne(c, "auto", 0, records("a")).errorCode()).isZero();
        }
    }

    @Test
    void fetchOutsideTheLogIsOffsetOutOfRangeWithTheLogBounds() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            assertThat(produceOne(c, "t", 0, records("a", "b")).errorCode()).isZero();
            FetchResponseData r =
                    c.call(
                            ApiKeys.FETCH,
                            FETCH_V,
                            fetch("t", 100, 0, (byte) 0),
                            new FetchResponseData());
            FetchResponseData.PartitionData p = r.responses().get(0).partitions().get(0);
            assertThat(p.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
            assertThat(p.highWatermark()).isEqualTo(2);
            assertThat(p.logStartOffset()).isZero();
        }
    }

    @Test
    void acksZeroGetsNoResponseButIsStored() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(ApiKeys.PRODUCE, PRODUCE_V, produce("t", 0, records("a", "b", "c"), (short) 0));
            int id =
                    c.send(
                            ApiKeys.API_VERSIONS,
                            (short) 3,
                            new ApiVersionsRequestData()
                                    .setClientSoftwareName("raw")
                                    .setClientSoftwareVersion("1"));
            // The next frame on the wire answers ApiVersions: the produce got none.
            ApiVersionsResponseData v =
                    c.receive(ApiKeys.API_VERSIONS, (short) 3, id, new ApiVersionsResponseData());
            assertThat(v.errorCode()).isZero();
            assertThat(latest(c, "t")).isEqualTo(3);
        }
    }

    @Test
    void retriedIdempotentBatchGetsItsOriginalOffsetsAcrossRestartsAndIdsAreNeverReused()
            throws Exception {
        long pid;
        MemoryRecords first;
        try (RawClient c = new RawClient(server.port())) {
            InitProducerIdResponseData init =
                    c.call(
                            ApiKeys.INIT_PRODUCER_ID,
                            (short) 4,
                            new InitProducerIdRequestData()
                                    .setTransactionalId(null)
                                    .setTransactionTimeoutMs(60000),
                            new InitProducerIdResponseData());
            assertThat(init.errorCode()).isZero();
            pid = init.producerId();
            first =
                    MemoryRecords.withIdempotentRecords(
                            Compression.NONE,
                            pid,
                            (short) 0,
                            0,
                            new SimpleRecord("a".getBytes()),
                            new SimpleRecord("b".getBytes()),
                            new SimpleRecord("c".getBytes()));
            MemoryRecords second =
                    MemoryRecords.withIdempotentRecords(
                            Compression.NONE, pid, (short) 0, 3, new SimpleRecord("d".getBytes()));
            assertThat(produceOne(c, "t", 0, copy(first)).baseOffset()).isZero();
            assertThat(produceOne(c, "t", 0, copy(second)).baseOffset()).isEqualTo(3);
            ProduceResponseData.PartitionProduceResponse retry = produceOne(c, "t", 0, copy(first));
            assertThat(retry.errorCode()).isZero();
            assertThat(retry.baseOffset()).isZero();
            MemoryRecords gap =
                    MemoryRecords.withIdempotentRecords(
                            Compression.NONE,
                            pid,
                            (short) 0,
                            100,
                            new SimpleRecord("z".getBytes()));
            assertThat(produceOne(c, "t", 0, gap).errorCode())
                    .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code());
            assertThat(latest(c, "t")).isEqualTo(4);
        }
        server.restart();
        try (RawClient c = new RawClient(server.port())) {
            ProduceResponseData.PartitionProduceResponse retry = produceOne(c, "t", 0, copy(first));
            assertThat(retry.errorCode()).isZero();
            assertThat(retry.baseOffset()).isZero();
            assertThat(latest(c, "t")).isEqualTo(4);
            InitProducerIdResponseData next =
                    c.call(
                            ApiKeys.INIT_PRODUCER_ID,
                            (short) 4,
                            new InitProducerIdRequestData()
                                    .setTransactionalId(null)
                                    .setTransactionTimeoutMs(60000),
                            new InitProducerIdResponseData());
            assertThat(next.producerId()).isGreaterThan(pid);
            InitProducerIdResponseData txn =
                    c.call(
                            ApiKeys.INIT_PRODUCER_ID,
                            (short) 4,
                            new InitProducerIdRequestData()
                                    .setTransactionalId("tx")
                                    .setTransactionTimeoutMs(60000),
                            new InitProducerIdResponseData());
            // a transactional id gets its own producer id, never one handed out before
            assertThat(txn.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(txn.producerId()).isGreaterThan(next.producerId());
        }
    }

    private static MemoryRecords copy(MemoryRecords r) {
        ByteBuffer b = ByteBuffer.allocate(r.sizeInBytes());
        b.put(r.buffer().duplicate()).flip();
        return MemoryRecords.readableRecords(b);
    }

    @Test
    void longPollFetchIsAnsweredByAnAppendBeforeMaxWait() throws Exception {
        try (RawClient consumer = new RawClient(server.port());
                RawClient producer = new RawClient(server.port())) {
            // max_wait far beyond the socket timeout: only an append can answer in time.
            int id = consumer.send(ApiKeys.FETCH, FETCH_V, fetch("t", 0, 600_000, (byte) 0));
            assertThat(produceOne(producer, "t", 0, records("wake")).errorCode()).isZero();
            consumer.setTimeout(30_000);
            FetchResponseData r =
                    consumer.receive(ApiKeys.FETCH, FETCH_V, id, new FetchResponseData());
            FetchResponseData.PartitionData p = r.responses().get(0).partitions().get(0);
            assertThat(p.errorCode()).isZero();
            MemoryRecords got = (MemoryRecords) p.records();
            assertThat(got.records().iterator().next().value().remaining()).isEqualTo(4);
        }
    }

    @Test
    void fsyncDurableTopicFromCreateTopicsConfigAcknowledgesEveryProduce() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            CreateTopicsRequestData req = new CreateTopicsRequestData().setTimeoutMs(5000);
            CreateTopicsRequestData.CreatableTopic t =
                    new CreateTopicsRequestData.CreatableTopic()
                            .setName("durable")
                            .setNumPartitions(1)
                            .setReplicationFactor((short) -1);
            t.configs()
                    .add(
                            new CreateTopicsRequestData.CreatableTopicConfig()
                                    .setName("log.durability")
                                    .setValue("fsync"));
            req.topics().add(t);
            CreateTopicsResponseData r =
                    c.call(ApiKeys.CREATE_TOPICS, (short) 7, req, new CreateTopicsResponseData());
            CreateTopicsResponseData.CreatableTopicResult res = r.topics().find("durable");
            assertThat(res.errorCode()).isZero();
            assertThat(res.configs())
                    .anySatisfy(
                            cfg -> {
                                assertThat(cfg.name()).isEqualTo("log.durability");
                                assertThat(cfg.value()).isEqualTo("fsync");
                            });
            // Pipelined produces, answered in order although they complete off the event loop.
            int n = 50;
            int[] ids = new int[n];
            for (int i = 0; i < n; i++) {
                ids[i] =
                        c.send(
                                ApiKeys.PRODUCE,
                                PRODUCE_V,
                                produce("durable", 0, records("r" + i), (short) -1));
            }
            for (int i = 0; i < n; i++) {
                ProduceResponseData pr =
                        c.receive(ApiKeys.PRODUCE, PRODUCE_V, ids[i], new ProduceResponseData());
                ProduceResponseData.PartitionProduceResponse p =
                        pr.responses().iterator().next().partitionResponses().get(0);
                assertThat(p.errorCode()).isZero();
                assertThat(p.baseOffset()).isEqualTo(i);
            }
            assertThat(latest(c, "durable")).isEqualTo(n);
        }
    }

    @Test
    void failedAcksZeroProduceClosesTheConnection() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(ApiKeys.PRODUCE, PRODUCE_V, produce("missing", 0, records("a"), (short) 0));
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void groupErrorsAreAnsweredWithKafkaCodesInOldAndNewVersions() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            for (short v : new short[] {0, 2, 6, 7, 9}) {
                org.apache.kafka.common.message.JoinGroupRequestData j =
                        new org.apache.kafka.common.message.JoinGroupRequestData()
                                .setGroupId("grp")
                                .setMemberId("ghost")
                                .setSessionTimeoutMs(10_000)
                                .setRebalanceTimeoutMs(10_000)
                                .setProtocolType("consumer");
                j.protocols()
                        .add(
                                new org.apache.kafka.common.message.JoinGroupRequestData
                                                .JoinGroupRequestProtocol()
                                        .setName("range")
                                        .setMetadata(new byte[0]));
                org.apache.kafka.common.message.JoinGroupResponseData r =
                        c.call(
                                ApiKeys.JOIN_GROUP,
                                v,
                                j,
                                new org.apache.kafka.common.message.JoinGroupResponseData());
                assertThat(r.errorCode()).as("v%d", v).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
            }
            org.apache.kafka.common.message.HeartbeatResponseData hb =
                    c.call(
                            ApiKeys.HEARTBEAT,
                            (short) 1,
                            new org.apache.kafka.common.message.HeartbeatRequestData()
                                    .setGroupId("grp")
                                    .setGenerationId(1)
                                    .setMemberId("ghost"),
                            new org.apache.kafka.common.message.HeartbeatResponseData());
            assertThat(hb.errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
            org.apache.kafka.common.message.SyncGroupResponseData sg =
                    c.call(
                            ApiKeys.SYNC_GROUP,
                            (short) 0,
                            new org.apache.kafka.common.message.SyncGroupRequestData()
                                    .setGroupId("grp")
                                    .setGenerationId(1)
                                    .setMemberId("ghost"),
                            new org.apache.kafka.common.message.SyncGroupResponseData());
            assertThat(sg.errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
            org.apache.kafka.common.message.FindCoordinatorResponseData txn =
                    c.call(
                            ApiKeys.FIND_COORDINATOR,
                            (short) 1,
                            new org.apache.kafka.common.message.FindCoordinatorRequestData()
                                    .setKey("tx")
                                    .setKeyType((byte) 1),
                            new org.apache.kafka.common.message.FindCoordinatorResponseData());
            // transactional ids are coordinated by this node too
            assertThat(txn.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(txn.nodeId()).isZero();
            org.apache.kafka.common.message.FindCoordinatorResponseData grp =
                    c.call(
                            ApiKeys.FIND_COORDINATOR,
                            (short) 1,
                            new org.apache.kafka.common.message.FindCoordinatorRequestData()
                                    .setKey("grp"),
                            new org.apache.kafka.common.message.FindCoordinatorResponseData());
            assertThat(grp.errorCode()).isZero();
            assertThat(grp.port()).isEqualTo(server.port());
        }
    }

    @Test
    void readCommittedFetchReportsLastStableOffsetAtTheHighWatermark() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            produceOne(c, "t", 0, records("a", "b"));
            FetchResponseData r =
                    c.call(
                            ApiKeys.FETCH,
                            FETCH_V,
                            fetch("t", 0, 0, (byte) 1),
                            new FetchResponseData());
            FetchResponseData.PartitionData p = r.responses().get(0).partitions().get(0);
            assertThat(p.highWatermark()).isEqualTo(2);
            assertThat(p.lastStableOffset()).isEqualTo(2);
            assertThat(p.abortedTransactions()).isEmpty();
            assertThat(((MemoryRecords) p.records()).sizeInBytes()).isPositive();
        }
    }

    @Test
    void connectionsBeyondMaxConnectionsAreClosedAndOthersKeepWorking() throws Exception {
        java.util.List<RawClient> open = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                open.add(new RawClient(server.port()));
            }
            try (RawClient extra = new RawClient(server.port())) {
                extra.setTimeout(20_000);
                assertThat(extra.closedByServer()).isTrue();
            }
            assertThat(latest(open.get(0), "t")).isZero();
        } finally {
            for (RawClient c : open) {
                c.close();
            }
        }
    }

    @Test
    void idleConnectionsAreClosedAfterConnectionsMaxIdleMs() throws Exception {
        server.close();
        server = new ServerHarness(dir, Map.of("connections.max.idle.ms", "300ms"));
        try (RawClient c = new RawClient(server.port())) {
            assertThat(latest(c, "t")).isZero();
            c.setTimeout(20_000);
            assertThat(c.closedByServer()).isTrue();
        }
    }
}
