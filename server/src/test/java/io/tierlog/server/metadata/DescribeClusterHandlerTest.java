package io.tierlog.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** DescribeCluster: this node is the only broker and the controller id. */
class DescribeClusterHandlerTest extends HandlerTestBase {
    private static final short V2 = 2;

    private DescribeClusterResponseData describe(DescribeClusterRequestData req) {
        return kit.call(ApiKeys.DESCRIBE_CLUSTER, V2, req);
    }

    @Test
    void thisNodeIsTheOnlyUnfencedBrokerAndTheControllerId() {
        DescribeClusterResponseData r =
                describe(new DescribeClusterRequestData().setIncludeFencedBrokers(true));
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.clusterId()).isEqualTo(kit.metadata().clusterId());
        assertThat(r.controllerId()).isEqualTo(kit.metadata().nodeId());
        assertThat(r.brokers())
                .singleElement()
                .satisfies(
                        b -> {
                            assertThat(b.brokerId()).isEqualTo(kit.metadata().nodeId());
                            assertThat(b.host()).isEqualTo(kit.metadata().advertised().host());
                            assertThat(b.port()).isEqualTo(kit.metadata().advertised().port());
                            assertThat(b.isFenced()).isFalse();
                            assertThat(b.rack()).isNull();
                        });
        assertThat(r.clusterAuthorizedOperations()).isEqualTo(Integer.MIN_VALUE);
    }

    @Test
    void authorizedOperationsAskedForAreEveryClusterOperationWithoutAnAuthorizer() {
        int ops =
                describe(
                                new DescribeClusterRequestData()
                                        .setIncludeClusterAuthorizedOperations(true))
                        .clusterAuthorizedOperations();
        assertThat(ops & (1 << AclOperation.ALTER_CONFIGS.code())).isNotZero();
        assertThat(ops & (1 << AclOperation.DESCRIBE.code())).isNotZero();
        assertThat(ops & (1 << AclOperation.READ.code())).as("not a cluster operation").isZero();
    }

    @Test
    void controllerEndpointsAreAMismatchAndUnknownTypesUnsupported() {
        assertThat(describe(new DescribeClusterRequestData().setEndpointType((byte) 2)).errorCode())
                .isEqualTo(Errors.MISMATCHED_ENDPOINT_TYPE.code());
        assertThat(describe(new DescribeClusterRequestData().setEndpointType((byte) 9)).errorCode())
                .isEqualTo(Errors.UNSUPPORTED_ENDPOINT_TYPE.code());
    }
}
