package io.tierlog.server.produce;

import io.tierlog.engine.TieredLog;
import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TxnVerification;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The transactional side of Produce (KIP-890 partition verification), as Kafka 4.4's {@code
 * KafkaApis.handleProduceRequest} and {@code ReplicaManager.handleProduceAppend}:
 *
 * <ul>
 *   <li>Transactional batches in a request without a transactional id: every partition {@code
 *       TRANSACTIONAL_ID_AUTHORIZATION_FAILED}. Transactional batches of more than one producer id:
 *       every partition {@code INVALID_PRODUCER_ID_MAPPING}. From v3, more than one batch in a
 *       partition: that partition {@code INVALID_RECORD}.
 *   <li>For each partition holding the producer's first transactional batch there, the engine
 *       starts a verification ({@code Transactions.startVerification}); the partitions that need
 *       one go to the coordinator in one call per request (one transactional id per request): v3-11
 *       verify that the client added them (TV1), v12 adds them (TV2, the implicit
 *       AddPartitionsToTxn). The appends then carry the verification token; the hot tier refuses a
 *       transactional batch whose verification was lost meanwhile (an abort came first).
 *   <li>The coordinator's errors are mapped for the client's version: {@code PRODUCER_FENCED}
 *       becomes {@code INVALID_PRODUCER_EPOCH}; {@code TRANSACTION_ABORTABLE} stays for v11+ and
 *       becomes {@code INVALID_TXN_STATE} for v10 and below (those clients do not know it);
 *       retriable coordinator errors ({@code CONCURRENT_TRANSACTIONS}, {@code NOT_COORDINATOR},
 *       {@code COORDINATOR_NOT_AVAILABLE}, {@code COORDINATOR_LOAD_IN_PROGRESS}, {@code
 *       NETWORK_EXCEPTION}) become {@code NOT_ENOUGH_REPLICAS}, which every producer retries
 *       without a metadata refresh.
 * </ul>
 *
 * Thread-safe (holds only the engine and the check).
 */
final class TxnProduce {
    private final TieredLog engine;
    private final TxnPartitionCheck check;

    TxnProduce(TieredLog engine, TxnPartitionCheck check) {
        this.engine = engine;
        this.check = check;
    }

    /**
     * The batch headers of every partition of a request.
     *
     * @param refusal the error of the whole request, or null
     * @param transactional true when a partition holds transactional batches
     */
    record Scan(
            Map<PartitionProduceData, TxnBatchInfo> infos,
            short version,
            Errors refusal,
            boolean transactional,
            long producerId,
            short producerEpoch) {

        /** True when the partition holds more than one batch and the version allows one. */
        boolean tooManyBatches(PartitionProduceData pd) {
            TxnBatchInfo i = infos.get(pd);
            return version >= 3 && i != null && i.batches() > 1;
        }
    }

    /** Reads the headers of the request's batches and decides refusals of the whole request. */
    static Scan scan(ProduceRequestData request, short version) {
        Map<PartitionProduceData, TxnBatchInfo> infos = new IdentityHashMap<>();
        boolean txn = false;
        boolean mixed = false;
        long pid = -1;
        short epoch = -1;
        for (TopicProduceData td : request.topicData()) {
            for (PartitionProduceData pd : td.partitionData()) {
                if (!(pd.records() instanceof MemoryRecords mr) || mr.sizeInBytes() == 0) {
                    continue;
                }
                TxnBatchInfo i = TxnBatchInfo.of(mr);
                infos.put(pd, i);
                if (i.transactional()) {
                    mixed |= i.mixedProducers() || (txn && i.producerId() != pid);
                    if (!txn) {
                        txn = true;
                        pid = i.producerId();
                        epoch = i.producerEpoch();
                    }
                }
            }
        }
        Errors refusal = null;
        if (txn && request.transactionalId() == null) {
            refusal = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        } else if (mixed) {
            refusal = Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        return new Scan(infos, version, refusal, txn, pid, epoch);
    }

    /**
     * Per partition, the verification token to append with or an error decided before any append.
     * {@link #NONE}: no transactional partition.
     */
    static final class Outcome {
        static final Outcome NONE = new Outcome();

        private final Map<PartitionProduceData, TxnVerification> tokens = new IdentityHashMap<>();
        private final Map<PartitionProduceData, Errors> errors = new IdentityHashMap<>();
        private final Map<PartitionProduceData, String> messages = new IdentityHashMap<>();

        /** The partition's refusal, or null to append it. */
        Errors error(PartitionProduceData pd) {
            return errors.get(pd);
        }

        String message(PartitionProduceData pd) {
            return messages.get(pd);
        }

        TxnVerification verification(PartitionProduceData pd) {
            return tokens.getOrDefault(pd, TxnVerification.NONE);
        }

        void refuse(PartitionProduceData pd, Errors error, String message) {
            errors.put(pd, error);
            messages.put(pd, message);
        }
    }

    /** The outcome of the engine side, with the partitions the coordinator must still check. */
    record Started(Scan scan, Outcome outcome, Map<TopicPartition, PartitionProduceData> toCheck) {}

    /**
     * Starts the engine's verification of every transactional partition (on the blocking executor:
     * producer state is read under the partition's lock).
     */
    Started startVerifications(ProduceRequestData request, short version, Scan scan) {
        Outcome outcome = new Outcome();
        Map<TopicPartition, PartitionProduceData> toCheck = new LinkedHashMap<>();
        boolean supportsEpochBump = version >= 12;
        for (TopicProduceData td : request.topicData()) {
            Optional<TopicInfo> topic = engine.topicRegistry().topic(td.name());
            for (PartitionProduceData pd : td.partitionData()) {
                TxnBatchInfo i = scan.infos().get(pd);
                if (i == null
                        || !i.transactional()
                        || topic.isEmpty()
                        || pd.index() < 0
                        || pd.index() >= topic.get().partitions()
                        || scan.tooManyBatches(pd)) {
                    continue; // not transactional, or the append path refuses it anyway
                }
                TopicPartition tp = new TopicPartition(td.name(), pd.index());
                try {
                    TxnVerification v =
                            engine.transactions()
                                    .startVerification(
                                            tp,
                                            i.producerId(),
                                            i.baseSequence(),
                                            i.producerEpoch(),
                                            supportsEpochBump);
                    if (v != TxnVerification.NONE) {
                        outcome.tokens.put(pd, v);
                        toCheck.put(tp, pd);
                    }
                } catch (ApiException e) {
                    outcome.refuse(pd, Errors.forException(e), e.getMessage());
                }
            }
        }
        return new Started(scan, outcome, toCheck);
    }

    /**
     * Asks the coordinator about the partitions that need it, in one call, and records its answers
     * mapped for {@code version}.
     */
    CompletionStage<Outcome> check(ProduceRequestData request, short version, Started started) {
        if (started.toCheck().isEmpty()) {
            return CompletableFuture.completedFuture(started.outcome());
        }
        return check.check(
                        request.transactionalId(),
                        started.scan().producerId(),
                        started.scan().producerEpoch(),
                        new java.util.LinkedHashSet<>(started.toCheck().keySet()),
                        version >= 12)
                .handle(
                        (errors, failure) -> {
                            Map<TopicPartition, Errors> byTp =
                                    failure == null ? errors : failedAll(started, failure);
                            for (Map.Entry<TopicPartition, PartitionProduceData> e :
                                    started.toCheck().entrySet()) {
                                Errors err = byTp.getOrDefault(e.getKey(), Errors.NONE);
                                if (err != Errors.NONE) {
                                    Errors mapped = mapForVersion(err, version);
                                    started.outcome()
                                            .refuse(e.getValue(), mapped, message(err, mapped));
                                }
                            }
                            return started.outcome();
                        });
    }

    private static Map<TopicPartition, Errors> failedAll(Started started, Throwable failure) {
        Map<TopicPartition, Errors> out = new HashMap<>();
        Throwable cause =
                failure instanceof java.util.concurrent.CompletionException
                                && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
        Errors err = Errors.forException(cause);
        if (err == Errors.UNKNOWN_SERVER_ERROR) {
            err = Errors.COORDINATOR_NOT_AVAILABLE; // retriable for the producer
        }
        for (TopicPartition tp : started.toCheck().keySet()) {
            out.put(tp, err);
        }
        return out;
    }

    /** The coordinator's error as a producer of {@code version} is answered. */
    static Errors mapForVersion(Errors error, short version) {
        return switch (error) {
            case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
            case TRANSACTION_ABORTABLE -> version >= 11 ? error : Errors.INVALID_TXN_STATE;
            case CONCURRENT_TRANSACTIONS,
                    NETWORK_EXCEPTION,
                    COORDINATOR_LOAD_IN_PROGRESS,
                    COORDINATOR_NOT_AVAILABLE,
                    NOT_COORDINATOR ->
                    Errors.NOT_ENOUGH_REPLICAS;
            default -> error;
        };
    }

    private static String message(Errors original, Errors mapped) {
        if (mapped == Errors.INVALID_TXN_STATE) {
            return "Partition was not added to the transaction";
        }
        if (mapped == Errors.NOT_ENOUGH_REPLICAS) {
            return "Unable to verify the partition has been added to the transaction. Underlying"
                    + " error: "
                    + original;
        }
        return mapped.message();
    }
}
