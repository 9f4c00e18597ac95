package io.tierlog.server.txn.coordinator;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes prepared transactions: writes the commit or abort marker into every partition through
 * the {@link TxnMarkerWriter} and completes every consumer group through the {@link
 * TxnGroupCompleter}, then reports the transaction done (its CompleteCommit/CompleteAbort record
 * may be journaled only then). Each partition's marker is independent: success removes the
 * partition from the transaction's metadata (DescribeTransactions lists those left); a storage
 * error (or any retriable one) is retried after the backoff; UNKNOWN_TOPIC_OR_PARTITION (the topic
 * was deleted) drops the partition with a WARN; any other Kafka error (fencing) drops it with an
 * ERROR, as Kafka's marker channel does. Group completions are retried until they succeed.
 *
 * <p>Writer and completer calls run on the I/O executor; retries wait on the timer. After {@link
 * #close} nothing new is sent: the journal still holds the PrepareX records, so the next open sends
 * the markers again.
 *
 * <p>Thread-safe.
 */
final class TxnMarkerQueue {
    private static final Logger LOG = LoggerFactory.getLogger(TxnMarkerQueue.class);

    /** One prepared transaction's markers. */
    record Job(
            TransactionMetadata meta,
            long producerId,
            short producerEpoch,
            int coordinatorEpoch,
            boolean commit,
            int transactionVersion,
            Set<TopicPartition> partitions,
            Set<String> groups) {}

    private final TxnMarkerWriter writer;
    private final TxnGroupCompleter groups;
    private final Executor io;
    private final ScheduledExecutorService timer;
    private final long backoffMs;
    private volatile boolean closed;

    TxnMarkerQueue(
            TxnMarkerWriter writer,
            TxnGroupCompleter groups,
            Executor io,
            ScheduledExecutorService timer,
            long backoffMs) {
        this.writer = writer;
        this.groups = groups;
        this.io = io;
        this.timer = timer;
        this.backoffMs = backoffMs;
    }

    /**
     * Sends every marker and group completion of {@code job}; the future completes once all are
     * done (written or dropped). It never completes after {@link #close}.
     */
    CompletableFuture<Void> send(Job job) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Set<Object> left = ConcurrentHashMap.newKeySet();
        left.addAll(job.partitions());
        left.addAll(job.groups());
        if (left.isEmpty()) {
            done.complete(null);
            return done;
        }
        for (TopicPartition tp : job.partitions()) {
            run(() -> sendMarker(job, tp, left, done, 0));
        }
        for (String g : job.groups()) {
            run(() -> sendGroup(job, g, left, done, 0));
        }
        return done;
    }

    private void run(Runnable r) {
        if (closed) {
            return;
        }
        try {
            io.execute(r);
        } catch (RejectedExecutionException e) {
            LOG.debug("Marker work rejected (shutting down)");
        }
    }

    private void later(Runnable r) {
        if (closed) {
            return;
        }
        try {
            timer.schedule(() -> run(r), backoffMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("Marker retry rejected (shutting down)");
        }
    }

    private void sendMarker(
            Job job, TopicPartition tp, Set<Object> left, CompletableFuture<Void> done, int tries) {
        if (closed) {
            return;
        }
        CompletableFuture<Void> f;
        try {
            f =
                    writer.writeMarker(
                            tp,
                            job.producerId(),
                            job.producerEpoch(),
                            job.coordinatorEpoch(),
                            job.commit(),
                            job.transactionVersion());
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete(
                (v, e) -> {
                    Throwable cause = unwrap(e);
                    if (cause == null) {
                        finished(job, tp, left, done);
                    } else if (cause instanceof UnknownTopicOrPartitionException) {
                        LOG.warn(
                                "Dropping the {} marker of {} (producer {}) for {}: the partition"
                                        + " is gone",
                                kind(job),
                                job.meta().transactionalId,
                                job.producerId(),
                                tp);
                        finished(job, tp, left, done);
                    } else if (cause instanceof KafkaStorageException
                            || cause instanceof RetriableException
                            || !(cause instanceof ApiException)) {
                        if (tries % 100 == 0) {
                            LOG.warn(
                                    "Cannot write the {} marker of {} (producer {}) into {}: {};"
                                            + " retrying every {} ms",
                                    kind(job),
                                    job.meta().transactionalId,
                                    job.producerId(),
                                    tp,
                                    cause.toString(),
                                    backoffMs);
                        }
                        later(() -> sendMarker(job, tp, left, done, tries + 1));
                    } else {
                        LOG.error(
                                "Dropping the {} marker of {} (producer {} epoch {}) for {}: {}",
                                kind(job),
                                job.meta().transactionalId,
                                job.producerId(),
                                job.producerEpoch(),
                                tp,
                                cause.toString());
                        finished(job, tp, left, done);
                    }
                });
    }

    private void sendGroup(
            Job job, String group, Set<Object> left, CompletableFuture<Void> done, int tries) {
        if (closed) {
            return;
        }
        CompletableFuture<Void> f;
        try {
            f =
                    groups.completeTransaction(
                            group, job.producerId(), job.producerEpoch(), job.commit());
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete(
                (v, e) -> {
                    Throwable cause = unwrap(e);
                    if (cause == null) {
                        finished(job, group, left, done);
                    } else {
                        if (tries % 100 == 0) {
                            LOG.warn(
                                    "Cannot complete the {} of {} (producer {}) in group {}: {};"
                                            + " retrying every {} ms",
                                    kind(job),
                                    job.meta().transactionalId,
                                    job.producerId(),
                                    group,
                                    cause.toString(),
                                    backoffMs);
                        }
                        later(() -> sendGroup(job, group, left, done, tries + 1));
                    }
                });
    }

    private static void finished(
            Job job, Object item, Set<Object> left, CompletableFuture<Void> done) {
        TransactionMetadata m = job.meta();
        synchronized (m) {
            if (item instanceof TopicPartition tp) {
                m.partitions.remove(tp);
            } else {
                m.groups.remove((String) item);
            }
        }
        if (left.remove(item) && left.isEmpty()) {
            done.complete(null);
        }
    }

    private static String kind(Job job) {
        return job.commit() ? "commit" : "abort";
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** Stops sending; markers not yet written are sent again by the next open. */
    void close() {
        closed = true;
    }
}
