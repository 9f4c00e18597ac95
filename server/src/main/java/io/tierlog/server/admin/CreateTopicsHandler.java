package io.tierlog.server.admin;

import io.tierlog.common.Config;
import io.tierlog.engine.DescribedConfig;
import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.ServerOptions;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreateTopics: partitions default to {@code num.partitions} when -1; the replication factor must
 * be -1 or 1 (one server); configs are Kafka's topic configs, validated as Kafka validates them
 * (engine {@code KafkaTopicConfigs}), unknown keys and {@code cleanup.policy=compact} refused with
 * {@code INVALID_CONFIG}; manual assignments are accepted as a partition count. {@code
 * validate_only} checks without creating. Thread-safe.
 */
final class CreateTopicsHandler extends SyncApiHandler<CreateTopicsRequestData> {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(CreateTopicsHandler.class);

    private final Config config;
    private final TopicRegistry topics;

    CreateTopicsHandler(Config config, TopicRegistry topics, Executor blockingExecutor) {
        super(ApiKeys.CREATE_TOPICS, 7, CreateTopicsRequestData.class, blockingExecutor);
        this.config = config;
        this.topics = topics;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, CreateTopicsRequestData request, short version)
            throws IOException {
        CreateTopicsResponseData r = new CreateTopicsResponseData();
        Set<String> seen = new HashSet<>();
        Set<String> duplicated = new HashSet<>();
        for (CreatableTopic t : request.topics()) {
            if (!seen.add(t.name())) {
                duplicated.add(t.name());
            }
        }
        for (CreatableTopic t : request.topics()) {
            CreatableTopicResult res =
                    new CreatableTopicResult()
                            .setName(t.name())
                            .setTopicId(Uuid.ZERO_UUID)
                            .setNumPartitions(-1)
                            .setReplicationFactor((short) -1);
            if (duplicated.contains(t.name())) {
                res.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage(
                                "Create topics request contains duplicate topic " + t.name());
            } else {
                create(t, request.validateOnly(), version, res);
            }
            if (r.topics().find(t.name()) == null) {
                r.topics().add(res);
            }
        }
        return r;
    }

    private void create(
            CreatableTopic t, boolean validateOnly, short version, CreatableTopicResult res)
            throws IOException {
        int partitions = t.numPartitions();
        if (!t.assignments().isEmpty()) {
            if (partitions != -1 || t.replicationFactor() != -1) {
                res.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage(
                                "Both numPartitions or replicationFactor and manual assignment"
                                        + " were set");
                return;
            }
            partitions = t.assignments().size();
        }
        if (partitions == -1) {
            partitions = config.get(ServerOptions.NUM_PARTITIONS);
        }
        if (t.replicationFactor() != -1 && t.replicationFactor() != 1) {
            res.setErrorCode(Errors.INVALID_REPLICATION_FACTOR.code())
                    .setErrorMessage(
                            "Replication factor "
                                    + t.replicationFactor()
                                    + " is larger than the number of servers (1)");
            return;
        }
        Map<String, String> configs = new LinkedHashMap<>();
        for (CreatableTopicConfig c : t.configs()) {
            configs.put(c.name(), c.value());
        }
        try {
            TopicInfo meta = topics.create(t.name(), partitions, configs, validateOnly);
            res.setTopicId(meta.id())
                    .setNumPartitions(meta.partitions())
                    .setReplicationFactor((short) 1);
            if (version >= 5) {
                for (DescribedConfig e : topics.describeConfigs(meta.configs())) {
                    res.configs()
                            .add(
                                    new CreatableTopicConfigs()
                                            .setName(e.name())
                                            .setValue(e.value())
                                            .setReadOnly(false)
                                            .setConfigSource(e.source().code())
                                            .setIsSensitive(false));
                }
            }
        } catch (ApiException e) {
            res.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        } catch (IOException | RuntimeException e) {
            // never a closed connection: the client learns which topic failed and why
            LOG.warn("CreateTopics of {} failed", t.name(), e);
            res.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code())
                    .setErrorMessage("Cannot create topic '" + t.name() + "': " + e);
        }
    }

    /** Creating thousands of partitions takes seconds of file creation and fsyncs. */
    @Override
    protected boolean mayBlock(CreateTopicsRequestData request) {
        return true;
    }
}
