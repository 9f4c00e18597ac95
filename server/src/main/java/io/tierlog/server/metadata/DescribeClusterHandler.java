package io.tierlog.server.metadata;

import io.tierlog.server.Listener;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.MetadataService;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeCluster v0-v2, answered as a Kafka broker answers it: this node is the only broker (never
 * fenced, no rack) and the controller id. Only broker endpoints are described: {@code
 * endpointType=2} (controllers) gets {@code MISMATCHED_ENDPOINT_TYPE}, any other type {@code
 * UNSUPPORTED_ENDPOINT_TYPE}. Without an authorizer every cluster operation is allowed, so the
 * authorized operations asked for are all those Kafka defines for the cluster resource.
 * Thread-safe.
 */
final class DescribeClusterHandler extends SyncApiHandler<DescribeClusterRequestData> {
    static final byte BROKER_ENDPOINTS = 1;
    static final byte CONTROLLER_ENDPOINTS = 2;

    private final MetadataService metadata;

    DescribeClusterHandler(MetadataService metadata) {
        super(ApiKeys.DESCRIBE_CLUSTER, 2, DescribeClusterRequestData.class);
        this.metadata = metadata;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, DescribeClusterRequestData request, short version) {
        DescribeClusterResponseData r =
                new DescribeClusterResponseData()
                        .setEndpointType(request.endpointType())
                        .setClusterId(metadata.clusterId())
                        .setControllerId(metadata.nodeId())
                        .setClusterAuthorizedOperations(AuthorizedOperations.OMITTED);
        if (request.endpointType() == CONTROLLER_ENDPOINTS) {
            return r.setErrorCode(Errors.MISMATCHED_ENDPOINT_TYPE.code())
                    .setErrorMessage(
                            "The request was sent to an endpoint of type BROKER, but we wanted"
                                    + " an endpoint of type CONTROLLER");
        }
        if (request.endpointType() != BROKER_ENDPOINTS) {
            return r.setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("Unsupported endpoint type " + request.endpointType());
        }
        Listener ep = metadata.advertised();
        r.brokers()
                .add(
                        new DescribeClusterBroker()
                                .setBrokerId(metadata.nodeId())
                                .setHost(ep.host())
                                .setPort(ep.port())
                                .setRack(null)
                                .setIsFenced(false));
        if (request.includeClusterAuthorizedOperations()) {
            r.setClusterAuthorizedOperations(AuthorizedOperations.CLUSTER);
        }
        return r;
    }
}
