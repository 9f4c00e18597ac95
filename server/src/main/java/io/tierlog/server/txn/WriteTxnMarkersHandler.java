package io.tierlog.server.txn;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * WriteTxnMarkers v1-2, as an admin sends it ({@code kafka-transactions abort} for a hanging
 * transaction; Kafka's coordinators send it to brokers, this server's coordinator writes its
 * markers locally): each marker is written into each of its partitions, answered per partition. v2
 * carries the transaction version of the marker (KIP-1228); v1 markers are TV1's. Thread-safe.
 */
final class WriteTxnMarkersHandler extends TxnHandler<WriteTxnMarkersRequestData> {
    private final TransactionCoordinator coordinator;

    WriteTxnMarkersHandler(TransactionCoordinator coordinator) {
        super(ApiKeys.WRITE_TXN_MARKERS, 2, WriteTxnMarkersRequestData.class);
        this.coordinator = coordinator;
    }

    @Override
    public short minVersion() {
        return 1;
    }

    @Override
    protected CompletionStage<ApiMessage> handle(
            RequestContext context, WriteTxnMarkersRequestData request, short version) {
        List<CompletableFuture<WritableTxnMarkerResult>> results = new ArrayList<>();
        for (WritableTxnMarker m : request.markers()) {
            List<TopicPartition> partitions = partitions(m);
            int tv = version >= 2 ? Math.max(1, m.transactionVersion()) : 1;
            results.add(
                    coordinator
                            .writeMarkersForAdmin(
                                    m.producerId(),
                                    m.producerEpoch(),
                                    m.coordinatorEpoch(),
                                    m.transactionResult(),
                                    partitions,
                                    tv)
                            .thenApply(errors -> result(m.producerId(), partitions, errors, null)));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
                .thenApply(
                        ignored -> {
                            WriteTxnMarkersResponseData out = new WriteTxnMarkersResponseData();
                            for (CompletableFuture<WritableTxnMarkerResult> r : results) {
                                out.markers().add(r.join());
                            }
                            return out;
                        });
    }

    private static List<TopicPartition> partitions(WritableTxnMarker m) {
        List<TopicPartition> out = new ArrayList<>();
        for (WritableTxnMarkerTopic t : m.topics()) {
            for (int p : t.partitionIndexes()) {
                out.add(new TopicPartition(t.name(), p));
            }
        }
        return out;
    }

    /** The marker's result: each partition's error from {@code errors}, else {@code others}. */
    private static WritableTxnMarkerResult result(
            long pid,
            List<TopicPartition> partitions,
            Map<TopicPartition, Errors> errors,
            Errors others) {
        Map<String, WritableTxnMarkerTopicResult> byTopic = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            Errors e = errors.get(tp);
            if (e == null) {
                e = others == null ? Errors.NONE : others;
            }
            byTopic.computeIfAbsent(tp.topic(), t -> new WritableTxnMarkerTopicResult().setName(t))
                    .partitions()
                    .add(
                            new WritableTxnMarkerPartitionResult()
                                    .setPartitionIndex(tp.partition())
                                    .setErrorCode(e.code()));
        }
        return new WritableTxnMarkerResult()
                .setProducerId(pid)
                .setTopics(new ArrayList<>(byTopic.values()));
    }

    @Override
    protected ApiMessage errorResponse(
            WriteTxnMarkersRequestData request, short version, Errors error) {
        WriteTxnMarkersResponseData out = new WriteTxnMarkersResponseData();
        for (WritableTxnMarker m : request.markers()) {
            out.markers().add(result(m.producerId(), partitions(m), Map.of(), error));
        }
        return out;
    }
}
