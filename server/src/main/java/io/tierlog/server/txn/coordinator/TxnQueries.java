package io.tierlog.server.txn.coordinator;

import io.tierlog.server.txn.coordinator.TransactionCoordinator.ListFilter;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.ListResult;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.TxnDescription;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.TxnListing;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The coordinator's read-only answers (ListTransactions, DescribeTransactions, whether a producer
 * id is transactional) and the admin's WriteTxnMarkers, which bypasses the state machine.
 * Stateless; each transactional id's metadata is read under its monitor.
 */
final class TxnQueries {
    private TxnQueries() {}

    /** ListTransactions with Kafka's filters; Dead ids are never listed. */
    static ListResult list(Collection<TransactionMetadata> txns, ListFilter filter, long now) {
        Pattern pattern = null;
        if (filter.idPattern() != null && !filter.idPattern().isEmpty()) {
            try {
                pattern = Pattern.compile(filter.idPattern());
            } catch (PatternSyntaxException e) {
                return new ListResult(Errors.INVALID_REGULAR_EXPRESSION, Set.of(), List.of());
            }
        }
        Set<TransactionState> states = EnumSet.noneOf(TransactionState.class);
        Set<String> unknown = new LinkedHashSet<>();
        for (String s : filter.states()) {
            TransactionState.fromName(s).ifPresentOrElse(states::add, () -> unknown.add(s));
        }
        List<TxnListing> out = new ArrayList<>();
        for (TransactionMetadata m : txns) {
            synchronized (m) {
                if (m.state == TransactionState.DEAD
                        || (!filter.producerIds().isEmpty()
                                && !filter.producerIds().contains(m.producerId))
                        || (!filter.states().isEmpty() && !states.contains(m.state))
                        // Kafka: only transactions running longer than the duration
                        || (filter.durationMs() >= 0 && now - m.startMs <= filter.durationMs())
                        || (pattern != null && !pattern.matcher(m.transactionalId).matches())) {
                    continue;
                }
                out.add(new TxnListing(m.transactionalId, m.producerId, m.state.displayName()));
            }
        }
        out.sort(Comparator.comparing(TxnListing::transactionalId));
        return new ListResult(Errors.NONE, unknown, out);
    }

    /** DescribeTransactions: one description per id asked, in order. */
    static List<TxnDescription> describe(
            Map<String, TransactionMetadata> txns, Collection<String> ids, boolean closed) {
        List<TxnDescription> out = new ArrayList<>();
        for (String id : ids) {
            Errors e =
                    closed
                            ? Errors.COORDINATOR_NOT_AVAILABLE
                            : id == null || id.isEmpty()
                                    ? Errors.INVALID_REQUEST
                                    : Errors.TRANSACTIONAL_ID_NOT_FOUND;
            TransactionMetadata m = closed || id == null ? null : txns.get(id);
            if (m != null) {
                synchronized (m) {
                    if (m.state != TransactionState.DEAD) {
                        out.add(
                                new TxnDescription(
                                        id,
                                        Errors.NONE,
                                        m.state.displayName(),
                                        m.timeoutMs,
                                        m.startMs,
                                        m.producerId,
                                        m.producerEpoch,
                                        Set.copyOf(m.partitions)));
                        continue;
                    }
                }
            }
            out.add(new TxnDescription(id, e, "", -1, -1, -1, (short) -1, Set.of()));
        }
        return out;
    }

    /** Whether {@code pid} is the current, previous or next producer id of a transactional id. */
    static boolean isTransactional(Collection<TransactionMetadata> txns, long pid) {
        if (pid < 0) {
            return false;
        }
        for (TransactionMetadata m : txns) {
            synchronized (m) {
                if (m.producerId == pid || m.prevProducerId == pid || m.nextProducerId == pid) {
                    return true;
                }
            }
        }
        return false;
    }

    /** WriteTxnMarkers from an admin: each partition's marker on the I/O executor. */
    static CompletableFuture<Map<TopicPartition, Errors>> writeMarkers(
            TxnMarkerWriter writer,
            Executor io,
            boolean closed,
            long producerId,
            short producerEpoch,
            int coordinatorEpoch,
            boolean commit,
            Collection<TopicPartition> partitions,
            int transactionVersion) {
        Map<TopicPartition, CompletableFuture<Errors>> each = new LinkedHashMap<>();
        for (TopicPartition tp : new LinkedHashSet<>(partitions)) {
            CompletableFuture<Errors> e = new CompletableFuture<>();
            each.put(tp, e);
            if (closed) {
                e.complete(Errors.COORDINATOR_NOT_AVAILABLE);
                continue;
            }
            try {
                io.execute(
                        () -> {
                            CompletableFuture<Void> w;
                            try {
                                w =
                                        writer.writeMarker(
                                                tp,
                                                producerId,
                                                producerEpoch,
                                                coordinatorEpoch,
                                                commit,
                                                transactionVersion);
                            } catch (RuntimeException ex) {
                                w = CompletableFuture.failedFuture(ex);
                            }
                            w.whenComplete(
                                    (v, ex) ->
                                            e.complete(
                                                    ex == null
                                                            ? Errors.NONE
                                                            : Errors.forException(unwrap(ex))));
                        });
            } catch (RejectedExecutionException ex) {
                e.complete(Errors.COORDINATOR_NOT_AVAILABLE);
            }
        }
        return CompletableFuture.allOf(each.values().toArray(new CompletableFuture<?>[0]))
                .thenApply(
                        v -> {
                            Map<TopicPartition, Errors> r = new LinkedHashMap<>();
                            each.forEach((tp, f) -> r.put(tp, f.join()));
                            return r;
                        });
    }

    private static Throwable unwrap(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
