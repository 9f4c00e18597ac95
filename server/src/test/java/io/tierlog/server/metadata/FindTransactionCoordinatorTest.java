package io.tierlog.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * FindCoordinator with a transaction coordinator wired: transactional ids are coordinated by this
 * server at every version (the 177 COORDINATOR_NOT_AVAILABLE retries of issue 11 end here), groups
 * still are, and a key type Kafka does not know is an invalid request.
 */
class FindTransactionCoordinatorTest extends HandlerTestBase {
    private static final byte TRANSACTION = 1;

    @Override
    protected Map<String, String> settings() {
        return Map.of("node.id", "7");
    }

    private FindCoordinatorResponseData call(short version, FindCoordinatorRequestData request) {
        FindCoordinatorHandler h = new FindCoordinatorHandler(kit.metadata(), true);
        ApiMessage r =
                h.handle(kit.context(ApiKeys.FIND_COORDINATOR, version), request)
                        .toCompletableFuture()
                        .join();
        return (FindCoordinatorResponseData) r;
    }

    @Test
    void aTransactionalIdIsCoordinatedByThisServerBeforeVersion4() {
        for (short v = 1; v <= 3; v++) {
            FindCoordinatorResponseData r =
                    call(
                            v,
                            new FindCoordinatorRequestData()
                                    .setKey("txn-a")
                                    .setKeyType(TRANSACTION));
            assertThat(r.errorCode()).as("v%d", v).isEqualTo(Errors.NONE.code());
            assertThat(r.nodeId()).isEqualTo(7);
            assertThat(r.host()).isEqualTo("kit.example");
            assertThat(r.port()).isEqualTo(9092);
        }
    }

    @Test
    void batchedTransactionalIdsEachGetThisServerFromVersion4() {
        FindCoordinatorResponseData r =
                call(
                        (short) 4,
                        new FindCoordinatorRequestData()
                                .setKeyType(TRANSACTION)
                                .setCoordinatorKeys(List.of("txn-a", "txn-b")));

        assertThat(r.coordinators()).hasSize(2);
        for (FindCoordinatorResponseData.Coordinator c : r.coordinators()) {
            assertThat(c.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(c.nodeId()).isEqualTo(7);
            assertThat(c.host()).isEqualTo("kit.example");
        }
        assertThat(r.coordinators().get(1).key()).isEqualTo("txn-b");
    }

    @Test
    void anUnknownKeyTypeIsAnInvalidRequest() {
        FindCoordinatorResponseData r =
                call(
                        (short) 4,
                        new FindCoordinatorRequestData()
                                .setKeyType((byte) 2)
                                .setCoordinatorKeys(List.of("share")));
        assertThat(r.coordinators().get(0).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    }

    @Test
    void theServedHandlerRefusesTransactionalIdsWhileTransactionsAreOff() throws Exception {
        reopen(Map.of("transaction.coordinator.enable", "false"));
        FindCoordinatorResponseData r =
                kit.call(
                        ApiKeys.FIND_COORDINATOR,
                        (short) 4,
                        new FindCoordinatorRequestData()
                                .setKeyType(TRANSACTION)
                                .setCoordinatorKeys(List.of("txn-a")));
        assertThat(r.coordinators().get(0).errorCode())
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
    }
}
