package io.tierlog.server.produce;

import io.tierlog.engine.Appended;
import io.tierlog.engine.RecordValidationException;
import io.tierlog.engine.TieredLog;
import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.engine.TxnVerification;
import io.tierlog.server.dispatch.ApiHandlerBase;
import io.tierlog.server.dispatch.CloseConnectionException;
import io.tierlog.server.dispatch.PartitionFailureLog;
import io.tierlog.server.dispatch.RequestContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
 * codes, records refused by a topic's schema contract with Kafka's per-record errors ({@code
 * RecordErrors}: batch index and message, plus the partition's {@code ErrorMessage}); a retried
 * idempotent batch is answered with its original offsets. A storage fault (the append failed and
 * was rolled back, or the partition is offline after one) answers {@code KAFKA_STORAGE_ERROR},
 * which producers retry. {@code acks=0} gets no response; acks other than 0, 1, -1 get {@code
 * INVALID_REQUIRED_ACKS}.
 *
 * <p><b>Threads.</b> A partition's append runs on the event loop when the engine can do it without
 * blocking ({@code TieredLog.appendWithoutBlocking}: a write into the active segment's page cache);
 * an append that would roll a segment, write a producer snapshot, allocate index pages, reopen a
 * file or wait for the partition's lock is done on the blocking executor instead, after the event
 * loop has appended the request's other partitions, and the response is sent when all are done. A
 * request to a topic whose appends wait for fsync ({@code log.durability=fsync}) runs on the
 * blocking executor as a whole. The connection answers its requests in order either way (the next
 * request waits for this one), so an idempotent producer's batches stay in order. Thread-safe.
 */
final class ProduceHandler extends ApiHandlerBase {
    private static final Logger log = LoggerFactory.getLogger(ProduceHandler.class);

    /** A failing disk fails every append: one stack per partition and exception a minute. */
    private static final PartitionFailureLog failures =
            new PartitionFailureLog(log, io.tierlog.common.Time.SYSTEM);

    private final TieredLog engine;
    private final TopicRegistry topics;
    private final Executor blockingExecutor;
    private final TxnProduce txn;

    /**
     * @param txnCheck the transaction coordinator's partition check, or null when transactions are
     *     not served (then Produce stops at v11 and transactional batches are not verified)
     */
    ProduceHandler(TieredLog engine, Executor blockingExecutor, TxnPartitionCheck txnCheck) {
        super(ApiKeys.PRODUCE, txnCheck == null ? 11 : 12);
        this.engine = engine;
        this.topics = engine.topicRegistry();
        this.blockingExecutor = blockingExecutor;
        this.txn = txnCheck == null ? null : new TxnProduce(engine, txnCheck);
    }

    /** A partition whose append is left to the blocking executor. */
    private record Deferred(
            TopicPartition tp,
            ByteBuffer batches,
            TxnVerification verification,
            PartitionProduceResponse pr) {}

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
        ProduceRequestData request = (ProduceRequestData) message;
        short version = context.apiVersion();
        TxnProduce.Scan scan = TxnProduce.scan(request, version);
        if (scan.refusal() != null) {
            return CompletableFuture.completedFuture(
                    answer(request, refuseAll(request, scan.refusal())));
        }
        if (scan.transactional() && txn != null) {
            // Verification reads producer state under partition locks and may make the
            // coordinator write its journal: never on the event loop.
            return CompletableFuture.supplyAsync(
                            () -> txn.startVerifications(request, version, scan), blockingExecutor)
                    .thenCompose(started -> txn.check(request, version, started))
                    .thenApplyAsync(
                            outcome ->
                                    answer(request, appendAll(request, scan, outcome, true, null)),
                            blockingExecutor);
        }
        if (waitsForFsync(request)) {
            return CompletableFuture.supplyAsync(
                    () ->
                            answer(
                                    request,
                                    appendAll(request, scan, TxnProduce.Outcome.NONE, true, null)),
                    blockingExecutor);
        }
        List<Deferred> deferred = new ArrayList<>();
        ProduceResponseData response =
                appendAll(request, scan, TxnProduce.Outcome.NONE, false, deferred);
        if (deferred.isEmpty()) {
            return CompletableFuture.completedFuture(answer(request, response));
        }
        return CompletableFuture.supplyAsync(
                () -> {
                    for (Deferred d : deferred) {
                        append(d.tp(), d.batches(), d.verification(), d.pr(), true);
                    }
                    return answer(request, response);
                },
                blockingExecutor);
    }

    /**
     * Appends every partition of the request, or, when {@code mayBlock} is false, those that need
     * no blocking call, adding the others to {@code deferred}. Partitions the transaction checks
     * refused in {@code txnOutcome} are answered with that error and not appended.
     */
    private ProduceResponseData appendAll(
            ProduceRequestData request,
            TxnProduce.Scan scan,
            TxnProduce.Outcome txnOutcome,
            boolean mayBlock,
            List<Deferred> deferred) {
        short acks = request.acks();
        boolean badAcks = acks != 0 && acks != 1 && acks != -1;
        ProduceResponseData response = new ProduceResponseData();
        for (TopicProduceData td : request.topicData()) {
            TopicProduceResponse tr = new TopicProduceResponse().setName(td.name());
            Optional<TopicInfo> topic = topics.topic(td.name());
            for (PartitionProduceData pd : td.partitionData()) {
                PartitionProduceResponse pr = partitionResponse(pd);
                Errors refused = txnOutcome.error(pd);
                if (badAcks) {
                    pr.setErrorCode(Errors.INVALID_REQUIRED_ACKS.code());
                } else if (refused != null) {
                    pr.setErrorCode(refused.code()).setErrorMessage(txnOutcome.message(pd));
                } else {
                    ByteBuffer batches = checked(topic, td.name(), pd, scan, pr);
                    if (batches != null) {
                        TopicPartition tp = new TopicPartition(td.name(), pd.index());
                        TxnVerification v = txnOutcome.verification(pd);
                        if (!append(tp, batches, v, pr, mayBlock)) {
                            deferred.add(new Deferred(tp, batches, v, pr));
                        }
                    }
                }
                tr.partitionResponses().add(pr);
            }
            response.responses().add(tr);
        }
        return response;
    }

    /** Every partition answered {@code error} (a refusal of the whole request, as Kafka's). */
    private static ProduceResponseData refuseAll(ProduceRequestData request, Errors error) {
        ProduceResponseData response = new ProduceResponseData();
        for (TopicProduceData td : request.topicData()) {
            TopicProduceResponse tr = new TopicProduceResponse().setName(td.name());
            for (PartitionProduceData pd : td.partitionData()) {
                tr.partitionResponses()
                        .add(
                                partitionResponse(pd)
                                        .setErrorCode(error.code())
                                        .setErrorMessage(error.message()));
            }
            response.responses().add(tr);
        }
        return response;
    }

    private static PartitionProduceResponse partitionResponse(PartitionProduceData pd) {
        return new PartitionProduceResponse()
                .setIndex(pd.index())
                .setBaseOffset(-1)
                .setLogAppendTimeMs(-1)
                .setLogStartOffset(-1);
    }

    /** The response to send: none for {@code acks=0}, whose failure closes the connection. */
    private static ApiMessage answer(ProduceRequestData request, ProduceResponseData response) {
        if (request.acks() == 0) {
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
    private boolean waitsForFsync(ProduceRequestData request) {
        for (TopicProduceData td : request.topicData()) {
            if (topics.appendWaitsForFsync(td.name())) {
                return true;
            }
        }
        return false;
    }

    /** The partition's batches, or null with the error set in {@code pr}. */
    private static ByteBuffer checked(
            Optional<TopicInfo> topic,
            String name,
            PartitionProduceData pd,
            TxnProduce.Scan scan,
            PartitionProduceResponse pr) {
        if (topic.isEmpty() || pd.index() < 0 || pd.index() >= topic.get().partitions()) {
            pr.setErrorCode(
                    topic.isEmpty() && !validName(name)
                            ? Errors.INVALID_TOPIC_EXCEPTION.code()
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            return null;
        }
        BaseRecords records = pd.records();
        if (!(records instanceof MemoryRecords mr) || mr.sizeInBytes() == 0) {
            pr.setErrorCode(Errors.INVALID_RECORD.code())
                    .setErrorMessage("produce request without record batches");
            return null;
        }
        if (scan.tooManyBatches(pd)) {
            pr.setErrorCode(Errors.INVALID_RECORD.code())
                    .setErrorMessage(
                            "Produce requests with version 3 and above must have exactly one"
                                    + " record batch per partition");
            return null;
        }
        return mr.buffer();
    }

    /**
     * Appends and fills {@code pr}; returns false when {@code mayBlock} is false and the append
     * must be done where blocking is allowed (nothing was written then).
     */
    private boolean append(
            TopicPartition tp,
            ByteBuffer batches,
            TxnVerification verification,
            PartitionProduceResponse pr,
            boolean mayBlock) {
        try {
            Appended r;
            if (mayBlock) {
                r =
                        verification == TxnVerification.NONE
                                ? engine.append(tp, batches)
                                : engine.append(tp, batches, verification);
            } else {
                // Only non-transactional partitions come here: a verified append never runs on
                // an event loop.
                Optional<Appended> done = engine.appendWithoutBlocking(tp, batches);
                if (done.isEmpty()) {
                    return false;
                }
                r = done.get();
            }
            pr.setBaseOffset(r.firstOffset())
                    .setLogAppendTimeMs(r.logAppendTime())
                    .setLogStartOffset(r.logStartOffset());
        } catch (KafkaStorageException e) {
            // The log logged the fault when it went offline; the producer retries.
            log.debug("append to {} refused: {}", tp, e.getMessage());
            pr.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()).setErrorMessage(e.getMessage());
        } catch (RecordValidationException e) {
            // Kafka's answer to records its validator refused: the partition's INVALID_RECORD,
            // its message, and each refused record's index, which the producer maps back to
            // the refused records' futures.
            pr.setErrorCode(Errors.INVALID_RECORD.code()).setErrorMessage(e.getMessage());
            for (RecordValidationException.RecordError re : e.recordErrors()) {
                pr.recordErrors()
                        .add(
                                new ProduceResponseData.BatchIndexAndErrorMessage()
                                        .setBatchIndex(re.batchIndex())
                                        .setBatchIndexErrorMessage(re.message()));
            }
        } catch (ApiException e) {
            // a bad batch, producer state (fenced, out of order), an unknown partition
            pr.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        } catch (IOException e) {
            failures.failed("append", tp, e);
            pr.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()).setErrorMessage(e.toString());
        } catch (RuntimeException e) {
            failures.failed("append (unexpectedly)", tp, e);
            pr.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(e.toString());
        }
        return true;
    }

    static boolean validName(String name) {
        return TopicRegistry.isValidName(name);
    }
}
