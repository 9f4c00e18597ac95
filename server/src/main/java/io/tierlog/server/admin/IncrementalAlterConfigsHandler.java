package io.tierlog.server.admin;

import io.tierlog.engine.KafkaTopicConfigs;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * IncrementalAlterConfigs: SET, DELETE, and for list configs ({@code cleanup.policy}, the
 * throttled-replica lists) APPEND and SUBTRACT, applied to a topic's overrides or to the broker's
 * dynamic configs (node {@code "0"} or the cluster default {@code ""}). APPEND/SUBTRACT start from
 * the current value, else Kafka's default, as Kafka does. {@code validateOnly} checks without
 * changing. Per-resource errors with Kafka's codes. Runs on the blocking executor (catalog and file
 * writes). Thread-safe.
 */
final class IncrementalAlterConfigsHandler
        extends SyncApiHandler<IncrementalAlterConfigsRequestData> {
    private static final byte SET = 0;
    private static final byte DELETE = 1;
    private static final byte APPEND = 2;
    private static final byte SUBTRACT = 3;

    private final ConfigResources resources;

    IncrementalAlterConfigsHandler(ConfigResources resources, Executor blockingExecutor) {
        super(
                ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                1,
                IncrementalAlterConfigsRequestData.class,
                blockingExecutor);
        this.resources = resources;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, IncrementalAlterConfigsRequestData request, short version) {
        IncrementalAlterConfigsResponseData r = new IncrementalAlterConfigsResponseData();
        for (AlterConfigsResource res : request.resources()) {
            ConfigResources.Outcome o;
            try {
                alter(res, request.validateOnly());
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

    private void alter(AlterConfigsResource res, boolean validateOnly) {
        Set<String> seen = new HashSet<>();
        for (AlterableConfig c : res.configs()) {
            if (!seen.add(c.name())) {
                throw new InvalidRequestException("Error due to duplicate config keys");
            }
        }
        boolean topic = res.resourceType() == ConfigResources.TOPIC;
        Map<String, String> configs =
                new LinkedHashMap<>(resources.current(res.resourceType(), res.resourceName()));
        for (AlterableConfig c : res.configs()) {
            switch (c.configOperation()) {
                case SET -> configs.put(c.name(), c.value());
                case DELETE -> configs.remove(c.name());
                case APPEND, SUBTRACT -> {
                    Optional<KafkaTopicConfigs.Def> d =
                            topic
                                    ? KafkaTopicConfigs.def(c.name())
                                    : KafkaTopicConfigs.forBrokerKey(c.name());
                    if (d.isEmpty() || !d.get().isList()) {
                        throw new InvalidConfigurationException(
                                "Config value append is not allowed for config key: " + c.name());
                    }
                    String old = configs.getOrDefault(c.name(), d.get().kafkaDefault());
                    List<String> items = split(old);
                    for (String v : split(c.value() == null ? "" : c.value())) {
                        if (c.configOperation() == APPEND) {
                            if (!items.contains(v)) {
                                items.add(v);
                            }
                        } else {
                            items.remove(v);
                        }
                    }
                    configs.put(c.name(), String.join(",", items));
                }
                default ->
                        throw new InvalidRequestException(
                                "Unknown config operation " + c.configOperation());
            }
        }
        resources.replace(res.resourceType(), res.resourceName(), configs, validateOnly);
    }

    private static List<String> split(String list) {
        List<String> out = new ArrayList<>();
        for (String s : Arrays.asList(list.split(","))) {
            if (!s.trim().isEmpty()) {
                out.add(s.trim());
            }
        }
        return out;
    }

    @Override
    protected boolean mayBlock(IncrementalAlterConfigsRequestData request) {
        return true;
    }
}
