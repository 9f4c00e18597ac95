package io.tierlog.server.produce;

import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What the Produce path reads from a partition's record batches before appending: whether they hold
 * more than one batch (refused from Produce v3, as {@code ProduceRequest.validateRecords}), and the
 * producer of the first transactional batch. Only batch headers are read, in place. Immutable.
 *
 * @param batches how many batches, counted up to 2
 * @param transactional true when a batch has the transactional attribute
 * @param producerId the transactional batch's producer id (-1 when not transactional)
 * @param producerEpoch its epoch
 * @param baseSequence its first sequence number
 * @param mixedProducers true when transactional batches of more than one producer id are present
 */
record TxnBatchInfo(
        int batches,
        boolean transactional,
        long producerId,
        short producerEpoch,
        int baseSequence,
        boolean mixedProducers) {

    /**
     * Reads the headers of {@code records} (a corrupt batch stops the scan: the engine refuses it).
     */
    static TxnBatchInfo of(MemoryRecords records) {
        int n = 0;
        boolean txn = false;
        boolean mixed = false;
        long pid = RecordBatch.NO_PRODUCER_ID;
        short epoch = RecordBatch.NO_PRODUCER_EPOCH;
        int seq = RecordBatch.NO_SEQUENCE;
        try {
            for (MutableRecordBatch b : records.batches()) {
                n = Math.min(n + 1, 2);
                if (b.magic() >= RecordBatch.MAGIC_VALUE_V2 && b.isTransactional()) {
                    if (!txn) {
                        txn = true;
                        pid = b.producerId();
                        epoch = b.producerEpoch();
                        seq = b.baseSequence();
                    } else if (b.producerId() != pid) {
                        mixed = true;
                    }
                }
            }
        } catch (RuntimeException corrupt) {
            // the engine's validation answers CORRUPT_MESSAGE for this partition
        }
        return new TxnBatchInfo(n, txn, pid, epoch, seq, mixed);
    }
}
