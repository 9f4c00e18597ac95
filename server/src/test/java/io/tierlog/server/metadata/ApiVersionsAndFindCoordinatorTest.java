package io.tierlog.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import io.tierlog.server.dispatch.ApiHandler;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * ApiVersions advertises exactly the routed APIs and their ranges; FindCoordinator names this
 * server for groups and, with transactions switched off, refuses transaction keys.
 */
class ApiVersionsAndFindCoordinatorTest extends HandlerTestBase {
    private static final byte GROUP = 0;
    private static final byte TRANSACTION = 1;

    @Override
    protected Map<String, String> settings() {
        return Map.of("node.id", "3", "transaction.coordinator.enable", "false");
    }

    @Test
    void apiVersionsListsEveryRoutedApiWithItsVersionRange() {
        ApiVersionsResponseData r =
                kit.call(
                        ApiKeys.API_VERSIONS,
                        (short) 3,
                        new ApiVersionsRequestData()
                                .setClientSoftwareName("kit")
                                .setClientSoftwareVersion("1.0"));

        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        List<ApiHandler> served = kit.registry().handlers();
        assertThat(r.apiKeys()).hasSize(served.size());
        for (ApiHandler h : served) {
            ApiVersion v = r.apiKeys().find(h.apiKey().id);
            assertThat(v).as("%s advertised", h.apiKey()).isNotNull();
            assertThat(v.minVersion()).isEqualTo(h.minVersion());
            assertThat(v.maxVersion()).isEqualTo(h.maxVersion());
        }
        assertThat(r.apiKeys().find(ApiKeys.PRODUCE.id).maxVersion()).isEqualTo((short) 11);
        assertThat(r.apiKeys().find(ApiKeys.END_TXN.id)).as("no transactions").isNull();
    }

    @Test
    void anInvalidClientSoftwareNameIsAnInvalidRequestThatStillListsTheApis() {
        ApiVersionsResponseData r =
                kit.call(
                        ApiKeys.API_VERSIONS,
                        (short) 3,
                        new ApiVersionsRequestData()
                                .setClientSoftwareName("-bad name-")
                                .setClientSoftwareVersion("1.0"));

        assertThat(r.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(r.apiKeys()).isNotEmpty();
    }

    @Test
    void groupsAreCoordinatedByThisServerBeforeVersion4() {
        FindCoordinatorResponseData r =
                kit.call(
                        ApiKeys.FIND_COORDINATOR,
                        (short) 3,
                        new FindCoordinatorRequestData().setKey("g").setKeyType(GROUP));

        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.nodeId()).isEqualTo(3);
        assertThat(r.host()).isEqualTo("kit.example");
        assertThat(r.port()).isEqualTo(9092);
    }

    @Test
    void batchedGroupKeysEachGetThisServerFromVersion4() {
        FindCoordinatorResponseData r =
                kit.call(
                        ApiKeys.FIND_COORDINATOR,
                        (short) 4,
                        new FindCoordinatorRequestData()
                                .setKeyType(GROUP)
                                .setCoordinatorKeys(List.of("g1", "g2")));

        assertThat(r.coordinators()).extracting(Coordinator::key).containsExactly("g1", "g2");
        for (Coordinator c : r.coordinators()) {
            assertThat(c.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(c.nodeId()).isEqualTo(3);
            assertThat(c.host()).isEqualTo("kit.example");
        }
    }

    @Test
    void transactionKeysHaveNoCoordinator() {
        FindCoordinatorResponseData old =
                kit.call(
                        ApiKeys.FIND_COORDINATOR,
                        (short) 3,
                        new FindCoordinatorRequestData().setKey("t").setKeyType(TRANSACTION));
        FindCoordinatorResponseData batched =
                kit.call(
                        ApiKeys.FIND_COORDINATOR,
                        (short) 4,
                        new FindCoordinatorRequestData()
                                .setKeyType(TRANSACTION)
                                .setCoordinatorKeys(List.of("t")));

        assertThat(old.errorCode()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
        assertThat(old.nodeId()).isEqualTo(-1);
        assertThat(batched.coordinators().get(0).errorCode())
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());
    }
}
