package io.tierlog.server.admin;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AlterConfigs (the legacy, whole-set form): each resource's configs are replaced by the ones given
 * (a topic's overrides, or the broker's dynamic configs of node {@code "0"} or of the cluster
 * default {@code ""}); what is not given goes back to its default. Per-resource errors with Kafka's
 * codes ({@code UNKNOWN_TOPIC_OR_PARTITION}, {@code INVALID_CONFIG} for a topic, {@code
 * INVALID_REQUEST} for a broker or a malformed resource). Catalog and file writes: runs on the
 * blocking executor. Thread-safe.
 */
final class AlterConfigsHandler extends SyncApiHandler<AlterConfigsRequestData> {
    private final ConfigResources resources;

    AlterConfigsHandler(ConfigResources resources, Executor blockingExecutor) {
        super(ApiKeys.ALTER_CONFIGS, 2, AlterConfigsRequestData.class, blockingExecutor);
        this.resources = resources;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, AlterConfigsRequestData request, short version) {
        AlterConfigsResponseData r = new AlterConfigsResponseData();
        for (AlterConfigsResource res : request.resources()) {
            ConfigResources.Outcome o;
            try {
                resources.current(res.resourceType(), res.resourceName()); // exists, supported
                Map<String, String> configs = new LinkedHashMap<>();
                for (AlterableConfig c : res.configs()) {
                    if (configs.put(c.name(), c.value()) != null) {
                        throw new InvalidRequestException("Error due to duplicate config keys");
                    }
                }
                resources.replace(
                        res.resourceType(), res.resourceName(), configs, request.validateOnly());
                o = ConfigResources.Outcome.OK;
            } catch (RuntimeException e) {
                o = ConfigResources.Outcome.of(e);
            }
            r.responses()
                    .add(
                            new AlterConfigsResourceResponse()
                                    .setResourceType(res.resourceType())
                                    .setResourceName(res.resourceName())
                                    .setErrorCode(o.errorCode())
                                    .setErrorMessage(o.errorMessage()));
        }
        return r;
    }

    @Override
    protected boolean mayBlock(AlterConfigsRequestData request) {
        return true;
    }
}
