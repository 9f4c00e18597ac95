package io.tierlog.server.produce;

import io.tierlog.engine.Appended;
import io.tierlog.engine.TieredLog;
import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.dispatch.CloseConnectionException;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce: hands each partition's record batches, still in the request buffer (never copied), to
 * the engine's {@code TieredLog.append}, which validates, assigns offsets, checks idempotent
 * sequences and writes. Errors are per partition: the engine's Kafka exceptions mapped to their
 * codes; a retried idempotent batch is answered with its original offsets. A storage fault (the
 * append failed and was rolled back, or the partition is offline after one) answers {@code
 * KAFKA_STORAGE_ERROR}, which producers retry. {@code acks=0} gets no response; acks other than 0,
 * 1, -1 get {@code INVALID_REQUIRED_ACKS}. Thread-safe.
 */
final class ProduceHandler extends SyncApiHandler<ProduceRequestData> {
    private static final Logger log = LoggerFactory.getLogger(ProduceHandler.class);

    private final TieredLog engine;
    private final TopicRegistry topics;

    ProduceHandler(TieredLog engine, Executor blockingExecutor) {
        super(ProduceRequestData.class, blockingExecutor);
        this.engine = engine;
        this.topics = engine.topicRegistry();
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.PRODUCE;
    }

    @Override
    public short maxVersion() {
        return 11;
    }

    @Override
    protected ApiMessage handle(RequestContext context, ProduceRequestData request, short version) {
        short acks = request.acks();
        boolean badAcks = acks != 0 && acks != 1 && acks != -1;
        ProduceResponseData response = new ProduceResponseData();
        for (TopicProduceData td : request.topicData()) {
            TopicProduceResponse tr = new TopicProduceResponse().setName(td.name());
            Optional<TopicInfo> topic = topics.topic(td.name());
            for (PartitionProduceData pd : td.partitionData()) {
                PartitionProduceResponse pr =
                        new PartitionProduceResponse()
                                .setIndex(pd.index())
                                .setBaseOffset(-1)
                                .setLogAppendTimeMs(-1)
                                .setLogStartOffset(-1);
                if (badAcks) {
                    pr.setErrorCode(Errors.INVALID_REQUIRED_ACKS.code());
                } else {
                    append(topic, td.name(), pd, pr);
                }
                tr.partitionResponses().add(pr);
            }
            response.responses().add(tr);
        }
        if (acks == 0) {
            if (hasError(response)) {
                // Kafka's answer to a failed acks=0 produce: the client notices the disconnect.
                throw new CloseConnectionException("acks=0 produce failed");
            }
            return null;
        }
        return response;
    }

    private static boolean hasError(ProduceResponseData response) {
        for (TopicProduceResponse tr : response.responses()) {
            for (PartitionProduceResponse pr : tr.partitionResponses()) {
                if (pr.errorCode() != 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** True when an append to a topic of the request waits for fsync (log.durability=fsync). */
    @Override
    protected boolean mayBlock(ProduceRequestData request) {
        for (TopicProduceData td : request.topicData()) {
            if (topics.appendWaitsForFsync(td.name())) {
                return true;
            }
        }
        return false;
    }

    private void append(
            Optional<TopicInfo> topic,
            String name,
            PartitionProduceData pd,
            PartitionProduceResponse pr) {
        if (topic.isEmpty() || pd.index() < 0 || pd.index() >= topic.get().partitions()) {
            pr.setErrorCode(
                    topic.isEmpty() && !validName(name)
                            ? Errors.INVALID_TOPIC_EXCEPTION.code()
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            return;
        }
        TopicPartition tp = new TopicPartition(name, pd.index());
        BaseRecords records = pd.records();
        if (!(records instanceof MemoryRecords mr) || mr.sizeInBytes() == 0) {
            pr.setErrorCode(Errors.INVALID_RECORD.code())
                    .setErrorMessage("produce request without record batches");
            return;
        }
        try {
            Appended r = engine.append(tp, mr.buffer());
            pr.setBaseOffset(r.firstOffset())
                    .setLogAppendTimeMs(r.logAppendTime())
                    .setLogStartOffset(r.logStartOffset());
        } catch (KafkaStorageException e) {
            // The log logged the fault when it went offline; the producer retries.
            log.debug("append to {} refused: {}", tp, e.getMessage());
            pr.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()).setErrorMessage(e.getMessage());
        } catch (ApiException e) {
            // a bad batch, producer state (fenced, out of order), an unknown partition
            pr.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        } catch (IOException e) {
            log.error("append to {} failed", tp, e);
            pr.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()).setErrorMessage(e.toString());
        } catch (RuntimeException e) {
            log.error("append to {} failed unexpectedly", tp, e);
            pr.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(e.toString());
        }
    }

    static boolean validName(String name) {
        return TopicRegistry.isValidName(name);
    }
}
