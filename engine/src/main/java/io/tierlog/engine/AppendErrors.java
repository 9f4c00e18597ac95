package io.tierlog.engine;

import io.tierlog.hot.InvalidBatchException;
import io.tierlog.hot.ProducerStateException;

/**
 * The hot tier's append refusals as Kafka's exceptions, each the one whose {@code
 * Errors.forException} code a Kafka broker answers a Produce with. Stateless.
 */
final class AppendErrors {
    private AppendErrors() {}

    static org.apache.kafka.common.errors.ApiException invalidBatch(InvalidBatchException e) {
        String m = e.getMessage();
        switch (e.kind()) {
            case CORRUPT_MESSAGE:
                return new org.apache.kafka.common.errors.CorruptRecordException(m);
            case MESSAGE_TOO_LARGE:
                return new org.apache.kafka.common.errors.RecordTooLargeException(m);
            case INVALID_TIMESTAMP:
                return new org.apache.kafka.common.errors.InvalidTimestampException(m);
            case INVALID_RECORD:
                return new org.apache.kafka.common.InvalidRecordException(m);
            default:
                return new org.apache.kafka.common.errors.UnsupportedForMessageFormatException(m);
        }
    }

    static org.apache.kafka.common.errors.ApiException producerState(ProducerStateException e) {
        String m = e.getMessage();
        switch (e.kind()) {
            case OUT_OF_ORDER_SEQUENCE:
                return new org.apache.kafka.common.errors.OutOfOrderSequenceException(m);
            case INVALID_PRODUCER_EPOCH:
                return new org.apache.kafka.common.errors.InvalidProducerEpochException(m);
            case INVALID_TXN_STATE:
                return new org.apache.kafka.common.errors.InvalidTxnStateException(m);
            case TRANSACTION_COORDINATOR_FENCED:
                return new org.apache.kafka.common.errors.TransactionCoordinatorFencedException(m);
            default:
                return new org.apache.kafka.common.errors.UnknownProducerIdException(m);
        }
    }
}
