package io.tierlog.server.txn.coordinator.archviolation;

import org.apache.kafka.common.message.EndTxnRequestData;

/** Deliberate violation (ModuleRulesBiteTest): a coordinator taking a request type. */
final class CoordinatorTakesEndTxnRequest {
    boolean commit(EndTxnRequestData request) {
        return request.committed();
    }
}
