package io.tierlog.server.txn;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.ListFilter;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.TxnListing;
import java.util.LinkedHashSet;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListTransactions v0-2 ({@code kafka-transactions list}, {@code find-hanging}): the transactional
 * ids this coordinator knows, filtered by state names (unknown names are echoed in {@code
 * UnknownStateFilters}), producer ids, v1 the minimum running time and v2 a regular expression on
 * the id ({@code INVALID_REGULAR_EXPRESSION} when it does not compile). Thread-safe.
 */
final class ListTransactionsHandler extends TxnHandler<ListTransactionsRequestData> {
    private final TransactionCoordinator coordinator;

    ListTransactionsHandler(TransactionCoordinator coordinator) {
        super(ApiKeys.LIST_TRANSACTIONS, 2, ListTransactionsRequestData.class);
        this.coordinator = coordinator;
    }

    @Override
    protected CompletionStage<ApiMessage> handle(
            RequestContext context, ListTransactionsRequestData request, short version) {
        ListFilter filter =
                new ListFilter(
                        new LinkedHashSet<>(request.stateFilters()),
                        new LinkedHashSet<>(request.producerIdFilters()),
                        version >= 1 ? request.durationFilter() : -1,
                        version >= 2
                                        && request.transactionalIdPattern() != null
                                        && !request.transactionalIdPattern().isEmpty()
                                ? request.transactionalIdPattern()
                                : null);
        return coordinator
                .listTransactions(filter)
                .thenApply(
                        r -> {
                            ListTransactionsResponseData out =
                                    new ListTransactionsResponseData()
                                            .setErrorCode(r.error().code());
                            out.unknownStateFilters().addAll(r.unknownStates());
                            for (TxnListing l : r.listings()) {
                                out.transactionStates()
                                        .add(
                                                new ListTransactionsResponseData.TransactionState()
                                                        .setTransactionalId(l.transactionalId())
                                                        .setProducerId(l.producerId())
                                                        .setTransactionState(l.state()));
                            }
                            return out;
                        });
    }

    @Override
    protected ApiMessage errorResponse(
            ListTransactionsRequestData request, short version, Errors error) {
        return new ListTransactionsResponseData().setErrorCode(error.code());
    }
}
