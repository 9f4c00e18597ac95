package io.tierlog.engine;

import io.micrometer.core.instrument.Counter;
import io.tierlog.hot.AppendResult;
import io.tierlog.hot.InvalidBatchException;
import io.tierlog.hot.LogOfflineException;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.ProducerStateException;
import io.tierlog.hot.VerificationGuard;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The append path of {@link TieredLog} (data batches and the transaction markers of {@link
 * Transactions}): the topic's schema contract first ({@link SchemaGuard}: {@link
 * RecordValidationException}), then the hot tier, its refusals as Kafka's exceptions ({@link
 * AppendErrors}), the bytes counted in {@code tierlog_bytes_in_total{tier="hot"}}. See {@link
 * TieredLog#append} for the contract. Thread-safe (the hot tier and the counter are).
 */
final class TierAppends {
    private final Function<TopicPartition, PartitionLog> hot;
    private final Counter hotBytesIn;
    private final SchemaGuard schemas;

    TierAppends(
            Function<TopicPartition, PartitionLog> hot, Counter hotBytesIn, SchemaGuard schemas) {
        this.hot = hot;
        this.hotBytesIn = hotBytesIn;
        this.schemas = schemas;
    }

    /**
     * Appends {@code batches}, or with {@code mayBlock} false returns empty when that would block.
     */
    Optional<Appended> append(
            TopicPartition tp, ByteBuffer batches, boolean mayBlock, TxnVerification verification)
            throws IOException {
        int size = batches.remaining();
        VerificationGuard guard = verification.guard();
        AppendResult r;
        try {
            PartitionLog log = hot.apply(tp);
            // Before the hot tier: a refused batch leaves the log (and producer state) untouched.
            if (!schemas.check(tp, batches, mayBlock)) {
                return Optional.empty();
            }
            r =
                    mayBlock
                            ? log.append(batches, PartitionLog.NO_PARTITION_LEADER_EPOCH, guard)
                            : log.appendWithoutBlocking(
                                    batches, PartitionLog.NO_PARTITION_LEADER_EPOCH, guard);
            if (r == null) {
                return Optional.empty();
            }
        } catch (InvalidBatchException e) {
            throw AppendErrors.invalidBatch(e);
        } catch (ProducerStateException e) {
            throw AppendErrors.producerState(e);
        } catch (LogOfflineException e) {
            throw new org.apache.kafka.common.errors.KafkaStorageException(e.getMessage(), e);
        }
        if (!r.duplicate()) {
            hotBytesIn.increment(size);
        }
        return Optional.of(
                new Appended(
                        r.firstOffset(),
                        r.lastOffset(),
                        r.logAppendTime(),
                        r.logStartOffset(),
                        r.recordCount(),
                        r.duplicate()));
    }
}
