package io.tierlog.server.metadata;

import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;

/**
 * The authorized-operations bitfields a Kafka broker without an authorizer reports when a client
 * asks for them (Metadata v8+, DescribeCluster): every operation Kafka defines for the resource
 * type (its {@code AclEntry.supportedOperations}), bit {@code 1 << code} each. Immutable.
 */
final class AuthorizedOperations {
    /** Kafka's "authorized operations not requested" value. */
    static final int OMITTED = Integer.MIN_VALUE;

    /** Every operation of the cluster resource. */
    static final int CLUSTER =
            bits(
                    EnumSet.of(
                            AclOperation.CREATE,
                            AclOperation.CLUSTER_ACTION,
                            AclOperation.DESCRIBE_CONFIGS,
                            AclOperation.ALTER_CONFIGS,
                            AclOperation.IDEMPOTENT_WRITE,
                            AclOperation.ALTER,
                            AclOperation.DESCRIBE));

    /** Every operation of a topic resource. */
    static final int TOPIC =
            bits(
                    EnumSet.of(
                            AclOperation.READ,
                            AclOperation.WRITE,
                            AclOperation.CREATE,
                            AclOperation.DESCRIBE,
                            AclOperation.DELETE,
                            AclOperation.ALTER,
                            AclOperation.DESCRIBE_CONFIGS,
                            AclOperation.ALTER_CONFIGS));

    private AuthorizedOperations() {}

    private static int bits(Set<AclOperation> ops) {
        int b = 0;
        for (AclOperation op : ops) {
            b |= 1 << op.code();
        }
        return b;
    }
}
