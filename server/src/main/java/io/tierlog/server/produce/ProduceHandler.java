package io.tierlog.server.produce;

import io.tierlog.hot.AppendResult;
import io.tierlog.hot.Durability;
import io.tierlog.hot.InvalidBatchException;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.LogOfflineException;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.ProducerStateException;
import io.tierlog.server.dispatch.CloseConnectionException;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.MetadataService;
import io.tierlog.server.meta.TopicMeta;
import io.tierlog.server.meta.TopicRegistry;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
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
 * {@link PartitionLog#append}, which validates, assigns offsets, checks idempotent sequences and
 * writes. Errors are per partition, mapped to Kafka codes; a retried idempotent batch is answered
 * with its original offsets. A storage fault (the append failed and was rolled back, or the
 * partition is offline after one) answers {@code KAFKA_STORAGE_ERROR}, which producers retry.
 * {@code acks=0} gets no response; acks other than 0, 1, -1 get {@code INVALID_REQUIRED_ACKS}.
 * Thread-safe.
 */
final class ProduceHandler extends SyncApiHandler<ProduceRequestData> {
    private static final Logger log = LoggerFactory.getLogger(ProduceHandler.class);

    private final TopicRegistry topics;
    private final LogManager logs;

    ProduceHandler(TopicRegistry topics, LogManager logs, Executor blockingExecutor) {
        super(ProduceRequestData.class, blockingExecutor);
        this.topics = topics;
        this.logs = logs;
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
            Optional<TopicMeta> topic = topics.topic(td.name());
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
            if (topics.logConfig(td.name()).durability() == Durability.FSYNC) {
                return true;
            }
        }
        return false;
    }

    private void append(
            Optional<TopicMeta> topic,
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
        Optional<PartitionLog> pl = logs.partition(tp);
        if (pl.isEmpty()) {
            pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            return;
        }
        BaseRecords records = pd.records();
        if (!(records instanceof MemoryRecords mr) || mr.sizeInBytes() == 0) {
            pr.setErrorCode(Errors.INVALID_RECORD.code())
                    .setErrorMessage("produce request without record batches");
            return;
        }
        try {
            AppendResult r = pl.get().append(mr.buffer());
            pr.setBaseOffset(r.firstOffset())
                    .setLogAppendTimeMs(r.logAppendTime())
                    .setLogStartOffset(r.logStartOffset());
        } catch (InvalidBatchException e) {
            pr.setErrorCode(code(e.kind()).code()).setErrorMessage(e.getMessage());
        } catch (ProducerStateException e) {
            pr.setErrorCode(code(e.kind()).code()).setErrorMessage(e.getMessage());
        } catch (LogOfflineException e) {
            // The log logged the fault when it went offline; the producer retries.
            log.debug("append to {} refused: {}", tp, e.getMessage());
            pr.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()).setErrorMessage(e.getMessage());
        } catch (IOException e) {
            log.error("append to {} failed", tp, e);
            pr.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()).setErrorMessage(e.toString());
        } catch (RuntimeException e) {
            log.error("append to {} failed unexpectedly", tp, e);
            pr.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(e.toString());
        }
    }

    static Errors code(InvalidBatchException.Kind kind) {
        switch (kind) {
            case CORRUPT_MESSAGE:
                return Errors.CORRUPT_MESSAGE;
            case MESSAGE_TOO_LARGE:
                return Errors.MESSAGE_TOO_LARGE;
            case INVALID_TIMESTAMP:
                return Errors.INVALID_TIMESTAMP;
            case INVALID_RECORD:
                return Errors.INVALID_RECORD;
            default:
                return Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT;
        }
    }

    static Errors code(ProducerStateException.Kind kind) {
        switch (kind) {
            case OUT_OF_ORDER_SEQUENCE:
                return Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
            case INVALID_PRODUCER_EPOCH:
                return Errors.INVALID_PRODUCER_EPOCH;
            default:
                return Errors.UNKNOWN_PRODUCER_ID;
        }
    }

    static boolean validName(String name) {
        return MetadataService.validTopicName(name);
    }
}
