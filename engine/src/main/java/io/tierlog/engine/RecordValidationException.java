package io.tierlog.engine;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.InvalidRecordException;

/**
 * An append refused because records of a batch broke a record-level rule (a topic's schema
 * contract): nothing of the append was written. As Kafka's {@code RecordValidationException}, it
 * carries the errors of every refused record; a server answers the partition with {@code
 * INVALID_RECORD} ({@code Errors.forException} of this exception), the {@link #getMessage()} as the
 * Produce response's {@code ErrorMessage} and {@link #recordErrors()} as its {@code RecordErrors},
 * so a Kafka producer fails each refused record with an {@code InvalidRecordException} carrying its
 * message and the batch's other records with a {@code KafkaException}. Immutable, so thread-safe.
 */
public final class RecordValidationException extends InvalidRecordException {
    private static final long serialVersionUID = 1L;

    /**
     * One refused record.
     *
     * @param batchIndex the record's index in its batch, from 0 (Kafka's {@code batch_index})
     * @param message why it was refused
     */
    public record RecordError(int batchIndex, String message) {
        public RecordError {
            Objects.requireNonNull(message, "message");
        }

        /** As Kafka prints a {@code ProduceResponse.RecordError}, so messages read the same. */
        @Override
        public String toString() {
            return "RecordError(batchIndex=" + batchIndex + ", message='" + message + "')";
        }
    }

    private final transient List<RecordError> recordErrors;

    /**
     * @param recordErrors at least one, in record order
     */
    public RecordValidationException(List<RecordError> recordErrors) {
        super(message(recordErrors));
        this.recordErrors = List.copyOf(recordErrors);
    }

    /** The refused records, in record order (never empty). */
    public List<RecordError> recordErrors() {
        return recordErrors;
    }

    /**
     * Kafka's own wording ({@code LogValidator.processRecordErrors}), so tools that grep it work.
     */
    private static String message(List<RecordError> errors) {
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("no record errors");
        }
        return "One or more records have been rejected due to "
                + errors.size()
                + " record errors in total, and only showing the first three errors at most: "
                + errors.subList(0, Math.min(errors.size(), 3));
    }
}
