package io.tierlog.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/** Metadata's authorized operations, as a Kafka broker without an authorizer reports them. */
class AuthorizedOperationsTest extends HandlerTestBase {
    private MetadataResponseData metadata(short version, boolean topicOps, boolean clusterOps) {
        MetadataRequestData req =
                new MetadataRequestData()
                        .setTopics(
                                List.of(
                                        new MetadataRequestData.MetadataRequestTopic()
                                                .setName("t")))
                        .setIncludeTopicAuthorizedOperations(topicOps);
        if (version <= 10) {
            req.setIncludeClusterAuthorizedOperations(clusterOps);
        }
        return kit.call(ApiKeys.METADATA, version, req);
    }

    @Test
    void everyTopicOperationIsAuthorizedWhenAskedForAndNoneReportedOtherwise() {
        kit.createTopic("t", 1);
        int ops = metadata((short) 12, true, false).topics().find("t").topicAuthorizedOperations();
        for (AclOperation op :
                List.of(
                        AclOperation.READ,
                        AclOperation.WRITE,
                        AclOperation.DESCRIBE,
                        AclOperation.DELETE,
                        AclOperation.ALTER_CONFIGS)) {
            assertThat(ops & (1 << op.code())).as("%s", op).isNotZero();
        }
        assertThat(ops & (1 << AclOperation.CLUSTER_ACTION.code())).isZero();
        assertThat(
                        metadata((short) 12, false, false)
                                .topics()
                                .find("t")
                                .topicAuthorizedOperations())
                .isEqualTo(Integer.MIN_VALUE);
    }

    @Test
    void clusterOperationsAreReportedByTheVersionsThatCarryThem() {
        kit.createTopic("t", 1);
        int ops = metadata((short) 10, false, true).clusterAuthorizedOperations();
        assertThat(ops & (1 << AclOperation.CLUSTER_ACTION.code())).isNotZero();
        assertThat(metadata((short) 10, false, false).clusterAuthorizedOperations())
                .isEqualTo(Integer.MIN_VALUE);
    }
}
