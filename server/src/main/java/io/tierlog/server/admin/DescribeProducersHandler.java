package io.tierlog.server.admin;

import io.tierlog.engine.ActiveProducer;
import io.tierlog.engine.OpenTransaction;
import io.tierlog.engine.TieredLog;
import io.tierlog.engine.TopicInfo;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeProducers v0: the producers each partition's hot tier remembers (id, epoch, last
 * sequence, last batch timestamp) and, for a producer with a transaction open in the partition, the
 * transaction's first offset ({@code CurrentTxnStartOffset}, -1 with none), which {@code
 * kafka-transactions find-hanging} and {@code abort --start-offset} read. A transaction open in the
 * partition whose producer the hot tier no longer lists (an expired entry) is still reported, so a
 * hanging transaction never hides. {@code CoordinatorEpoch} stays -1: the engine does not report
 * the epoch of the producer's last marker. From memory, but under each partition's lock, so on the
 * blocking executor. Thread-safe.
 */
final class DescribeProducersHandler extends SyncApiHandler<DescribeProducersRequestData> {
    private final TieredLog engine;

    DescribeProducersHandler(TieredLog engine, java.util.concurrent.Executor blockingExecutor) {
        super(ApiKeys.DESCRIBE_PRODUCERS, 0, DescribeProducersRequestData.class, blockingExecutor);
        this.engine = engine;
    }

    /**
     * The producer state is read under the partition's lock, whose holder may be rolling a segment
     * (file I/O): off the event loop.
     */
    @Override
    protected boolean mayBlock(DescribeProducersRequestData request) {
        return true;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, DescribeProducersRequestData request, short version) {
        DescribeProducersResponseData r = new DescribeProducersResponseData();
        for (TopicRequest t : request.topics()) {
            TopicResponse tr = new TopicResponse().setName(t.name());
            Optional<TopicInfo> meta = engine.topicRegistry().topic(t.name());
            for (int p : t.partitionIndexes()) {
                PartitionResponse pr = new PartitionResponse().setPartitionIndex(p);
                if (meta.isEmpty() || p < 0 || p >= meta.get().partitions()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
                } else {
                    describe(new TopicPartition(t.name(), p), pr);
                }
                tr.partitions().add(pr);
            }
            r.topics().add(tr);
        }
        return r;
    }

    private void describe(TopicPartition tp, PartitionResponse pr) {
        try {
            Map<Long, OpenTransaction> open = new LinkedHashMap<>();
            for (OpenTransaction t : engine.transactions().openTransactions(tp)) {
                open.put(t.producerId(), t);
            }
            for (ActiveProducer a : engine.activeProducers(tp)) {
                OpenTransaction t = open.remove(a.producerId());
                pr.activeProducers()
                        .add(
                                new ProducerState()
                                        .setProducerId(a.producerId())
                                        .setProducerEpoch(a.producerEpoch())
                                        .setLastSequence(a.lastSequence())
                                        .setLastTimestamp(a.lastTimestamp())
                                        .setCoordinatorEpoch(-1)
                                        .setCurrentTxnStartOffset(
                                                t == null ? -1 : t.firstOffset()));
            }
            for (OpenTransaction t : open.values()) {
                pr.activeProducers()
                        .add(
                                new ProducerState()
                                        .setProducerId(t.producerId())
                                        .setProducerEpoch(t.producerEpoch())
                                        .setLastSequence(-1)
                                        .setLastTimestamp(t.lastTimestamp())
                                        .setCoordinatorEpoch(-1)
                                        .setCurrentTxnStartOffset(t.firstOffset()));
            }
        } catch (ApiException e) {
            Errors err = Errors.forException(e);
            pr.setErrorCode(err.code()).setErrorMessage(e.getMessage());
        }
    }
}
