package io.tierlog.server.fetch;

import io.tierlog.engine.AbortedTransaction;
import io.tierlog.engine.Isolation;
import io.tierlog.server.dispatch.PartitionFailureLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the partitions of one fetch request into a {@link FetchResponseData}, applying Kafka's
 * limits: each partition gets at most its {@code partition_max_bytes}, the whole response at most
 * {@code max_bytes}, except that the first batch of the first partition with data is returned even
 * when larger (so consumers always progress); later partitions get no records once the response is
 * full. Can be re-run (a delayed fetch reads again when woken). Not thread-safe: one owner.
 */
final class FetchReader {
    private static final Logger log = LoggerFactory.getLogger(FetchReader.class);

    /** A failing disk fails every fetch: one stack per partition and exception a minute. */
    private static final PartitionFailureLog failures =
            new PartitionFailureLog(log, io.tierlog.common.Time.SYSTEM);

    /** One requested partition, resolved. {@code tp} is null when {@code error} is set. */
    record Target(
            String topic,
            Uuid topicId,
            TopicPartition tp,
            int partition,
            long fetchOffset,
            int partitionMaxBytes,
            Errors error) {}

    /** One read: the response, its record bytes, and whether a partition failed. */
    record Result(FetchResponseData response, long bytes, boolean hasError) {}

    private final FetchSource source;
    private final List<Target> targets;
    private final int maxBytes;
    private final boolean readCommitted;
    private final Isolation isolation;
    private final boolean byTopicId;

    FetchReader(
            FetchSource source,
            List<Target> targets,
            int maxBytes,
            boolean readCommitted,
            boolean byTopicId) {
        this.source = source;
        this.targets = targets;
        this.maxBytes = maxBytes;
        this.readCommitted = readCommitted;
        this.isolation = readCommitted ? Isolation.READ_COMMITTED : Isolation.READ_UNCOMMITTED;
        this.byTopicId = byTopicId;
    }

    List<TopicPartition> partitions() {
        List<TopicPartition> out = new ArrayList<>();
        for (Target t : targets) {
            if (t.tp() != null) {
                out.add(t.tp());
            }
        }
        return out;
    }

    static FetchResponseData topLevelError(Errors error) {
        return new FetchResponseData().setErrorCode(error.code()).setSessionId(0);
    }

    Result read() {
        return readAsync(Runnable::run, false).toCompletableFuture().join();
    }

    /**
     * Reads every partition, waiting (without blocking) for sources that complete later, such as
     * the cold tier; continuations run on {@code loop}. Reads that complete later run at the same
     * time, each with its partition's budget set aside from the response's, so a fetch waits for
     * the slowest of them, never for their sum (each is bounded by {@code cold.read.timeout.ms}, so
     * a fetch of many partitions of a stuck object store is still answered well inside the client's
     * request timeout). With {@code async} false, partitions are read with the synchronous {@link
     * FetchSource#read} (a woken delayed fetch).
     */
    CompletionStage<Result> readAsync(Executor loop, boolean async) {
        State st = new State();
        return step(st, loop, async).thenApply(v -> new Result(st.response, st.bytes, st.hasError));
    }

    /** Mutable state of one read; touched by one thread at a time (the chain is sequential). */
    private static final class State {
        final FetchResponseData response = new FetchResponseData().setSessionId(0);
        FetchableTopicResponse current;
        long bytes;

        /** Budget set aside for reads still in progress. */
        long reserved;

        boolean hasError;
    }

    /** A partition read that completes later, with the budget set aside for it. */
    private record Pending(
            Target target, PartitionData pd, int limit, CompletableFuture<PartitionRead> f) {}

    private CompletionStage<Void> step(State st, Executor loop, boolean async) {
        List<Pending> pending = new ArrayList<>();
        for (Target t : targets) {
            PartitionData pd = partitionData(st, t);
            if (t.error() != Errors.NONE) {
                pd.setErrorCode(t.error().code());
                st.hasError = true;
                continue;
            }
            long remaining = maxBytes - st.bytes - st.reserved;
            try {
                if (remaining <= 0) {
                    setOffsets(pd, source.offsets(t.tp()));
                    continue;
                }
                int limit = (int) Math.min(t.partitionMaxBytes(), remaining);
                CompletableFuture<PartitionRead> f =
                        async
                                ? source.readAsync(
                                                t.tp(),
                                                t.fetchOffset(),
                                                Math.max(1, limit),
                                                isolation)
                                        .toCompletableFuture()
                                : CompletableFuture.completedFuture(
                                        source.read(
                                                t.tp(),
                                                t.fetchOffset(),
                                                Math.max(1, limit),
                                                isolation));
                if (f.isDone()) {
                    complete(st, t, pd, limit, f);
                    continue;
                }
                pending.add(new Pending(t, pd, limit, f));
                st.reserved += limit;
            } catch (Exception e) {
                fail(st, t, pd, e);
            }
        }
        if (pending.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?>[] all =
                pending.stream()
                        .map(p -> p.f().handle((r, e) -> null))
                        .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(all)
                .handleAsync(
                        (v, e) -> {
                            // In request order; each within the budget set aside for it.
                            for (Pending p : pending) {
                                st.reserved -= p.limit();
                                complete(st, p.target(), p.pd(), p.limit(), p.f());
                            }
                            return null;
                        },
                        loop);
    }

    private PartitionData partitionData(State st, Target t) {
        if (st.current == null
                || !Objects.equals(st.current.topic(), t.topic())
                || !Objects.equals(st.current.topicId(), t.topicId())) {
            st.current = new FetchableTopicResponse();
            if (byTopicId) {
                st.current.setTopicId(t.topicId());
            }
            // Keep the name too (it is not serialised from v13) to group targets.
            st.current.setTopic(t.topic());
            st.response.responses().add(st.current);
        }
        PartitionData pd =
                new PartitionData()
                        .setPartitionIndex(t.partition())
                        .setHighWatermark(-1)
                        .setLastStableOffset(-1)
                        .setLogStartOffset(-1)
                        .setAbortedTransactions(readCommitted ? new ArrayList<>() : null)
                        .setRecords(MemoryRecords.EMPTY);
        st.current.partitions().add(pd);
        return pd;
    }

    private void complete(
            State st, Target t, PartitionData pd, int limit, CompletableFuture<PartitionRead> f) {
        PartitionRead read;
        try {
            read = f.join();
        } catch (java.util.concurrent.CompletionException
                | java.util.concurrent.CancellationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            fail(st, t, pd, cause instanceof Exception ex ? ex : new RuntimeException(cause));
            return;
        }
        setOffsets(pd, read);
        int size = read.sizeInBytes();
        // Only the first data of the response may exceed the limits (KIP-74).
        if (size > 0 && (st.bytes == 0 || size <= limit)) {
            pd.setRecords(read.records());
            st.bytes += size;
            if (readCommitted) {
                // Kafka's order: by first offset, as the client's CompletedFetch expects
                List<FetchResponseData.AbortedTransaction> aborted = pd.abortedTransactions();
                for (AbortedTransaction a : read.abortedTransactions()) {
                    aborted.add(
                            new FetchResponseData.AbortedTransaction()
                                    .setProducerId(a.producerId())
                                    .setFirstOffset(a.firstOffset()));
                }
                aborted.sort(
                        java.util.Comparator.comparingLong(
                                FetchResponseData.AbortedTransaction::firstOffset));
            }
        }
    }

    private void fail(State st, Target t, PartitionData pd, Exception e) {
        st.hasError = true;
        if (e instanceof ApiException) {
            // includes KafkaStorageException for an offline partition (logged once by the log
            // when it went offline; the consumer retries)
            pd.setErrorCode(Errors.forException(e).code());
            if (e instanceof org.apache.kafka.common.errors.OffsetOutOfRangeException) {
                try {
                    setOffsets(pd, source.offsets(t.tp()));
                } catch (ApiException ignored) {
                    // The partition vanished meanwhile; the error code says enough.
                }
            }
        } else {
            failures.failed("fetch at " + t.fetchOffset(), t.tp(), e);
            pd.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
        }
    }

    private static void setOffsets(PartitionData pd, PartitionRead read) {
        pd.setHighWatermark(read.highWatermark())
                .setLastStableOffset(read.lastStableOffset())
                .setLogStartOffset(read.logStartOffset());
    }
}
