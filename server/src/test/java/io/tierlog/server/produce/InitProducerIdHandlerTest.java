package io.tierlog.server.produce;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** InitProducerId: fresh ids are never reused, a known producer resumes with the next epoch. */
class InitProducerIdHandlerTest extends HandlerTestBase {
    private static final short V4 = 4;

    /** This handler serves only while no transaction coordinator is wired. */
    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("transaction.coordinator.enable", "false");
    }

    private InitProducerIdResponseData init(long pid, short epoch, String txnId) {
        return kit.call(
                ApiKeys.INIT_PRODUCER_ID,
                V4,
                new InitProducerIdRequestData()
                        .setTransactionalId(txnId)
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(pid)
                        .setProducerEpoch(epoch));
    }

    @Test
    void freshProducersGetDistinctIdsWithEpochZero() {
        InitProducerIdResponseData a = init(-1, (short) -1, null);
        InitProducerIdResponseData b = init(-1, (short) -1, null);

        assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(a.producerId()).isNotNegative();
        assertThat(a.producerEpoch()).isZero();
        assertThat(b.producerId()).isNotEqualTo(a.producerId());
    }

    @Test
    void anIssuedProducerResumesWithTheNextEpochAndAnUnknownOneGetsAFreshId() {
        InitProducerIdResponseData a = init(-1, (short) -1, null);
        InitProducerIdResponseData resumed = init(a.producerId(), (short) 0, null);
        InitProducerIdResponseData stranger = init(a.producerId() + 1_000_000, (short) 3, null);

        assertThat(resumed.producerId()).isEqualTo(a.producerId());
        assertThat(resumed.producerEpoch()).isEqualTo((short) 1);
        assertThat(stranger.producerId()).isNotEqualTo(a.producerId() + 1_000_000);
        assertThat(stranger.producerEpoch()).isZero();
    }

    @Test
    void transactionalIdsAreRefusedWithoutATransactionCoordinator() {
        InitProducerIdResponseData r = init(-1, (short) -1, "txn-1");
        assertThat(r.errorCode()).isEqualTo(Errors.NOT_COORDINATOR.code());
        assertThat(r.producerId()).isEqualTo(-1);
    }
}
