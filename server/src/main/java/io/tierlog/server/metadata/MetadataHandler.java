package io.tierlog.server.metadata;

import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.Listener;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.MetadataService;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Metadata: this server is the only broker, controller and leader of every partition. Topics are
 * listed with their ids (v10+); an unknown topic is created when {@code auto.create.topics.enable}
 * and the request allows it (v4+), and is then immediately usable. Leader epochs are reported as -1
 * (unknown) so clients skip the epoch validation this server does not implement. Thread-safe.
 */
final class MetadataHandler extends SyncApiHandler<MetadataRequestData> {
    private final boolean autoCreate;
    private final int defaultPartitions;

    private final MetadataService metadata;
    private final TopicRegistry topics;

    MetadataHandler(
            MetadataService metadata,
            TopicRegistry topics,
            boolean autoCreate,
            int defaultPartitions,
            java.util.concurrent.Executor blockingExecutor) {
        super(ApiKeys.METADATA, 12, MetadataRequestData.class, blockingExecutor);
        this.metadata = metadata;
        this.topics = topics;
        this.autoCreate = autoCreate;
        this.defaultPartitions = defaultPartitions;
    }

    @Override
    protected ApiMessage handle(RequestContext context, MetadataRequestData request, short version)
            throws IOException {
        Listener ep = metadata.advertised();
        MetadataResponseData r =
                new MetadataResponseData()
                        .setClusterId(metadata.clusterId())
                        .setControllerId(metadata.nodeId());
        r.brokers()
                .add(
                        new MetadataResponseBroker()
                                .setNodeId(metadata.nodeId())
                                .setHost(ep.host())
                                .setPort(ep.port()));
        if (version >= 8 && version <= 10 && request.includeClusterAuthorizedOperations()) {
            r.setClusterAuthorizedOperations(AuthorizedOperations.CLUSTER);
        }
        boolean all = request.topics() == null || (version == 0 && request.topics().isEmpty());
        if (all) {
            for (TopicInfo t : topics.topics()) {
                r.topics().add(describe(t));
            }
            return withTopicOperations(r, request, version);
        }
        boolean mayCreate = autoCreate && (version < 4 || request.allowAutoTopicCreation());
        for (MetadataRequestData.MetadataRequestTopic rt : request.topics()) {
            if (rt.name() == null) {
                Optional<TopicInfo> byId = topics.topic(rt.topicId());
                r.topics()
                        .add(
                                byId.map(this::describe)
                                        .orElseGet(
                                                () ->
                                                        error(
                                                                // name is nullable from v12 only
                                                                version < 12 ? "" : null,
                                                                rt.topicId(),
                                                                Errors.UNKNOWN_TOPIC_ID)));
                continue;
            }
            Optional<TopicInfo> t = topics.topic(rt.name());
            if (t.isEmpty() && mayCreate) {
                try {
                    t = Optional.of(topics.create(rt.name(), defaultPartitions, Map.of(), false));
                } catch (InvalidTopicException e) {
                    r.topics()
                            .add(error(rt.name(), Uuid.ZERO_UUID, Errors.INVALID_TOPIC_EXCEPTION));
                    continue;
                } catch (TopicExistsException e) {
                    t = metadata.topic(rt.name());
                } catch (org.apache.kafka.common.errors.ApiException e) {
                    // e.g. KAFKA_STORAGE_ERROR when the partitions could not be created
                    r.topics().add(error(rt.name(), Uuid.ZERO_UUID, Errors.forException(e)));
                    continue;
                }
            }
            if (t.isPresent()) {
                r.topics().add(describe(t.get()));
            } else {
                Errors err =
                        MetadataService.validTopicName(rt.name())
                                ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                                : Errors.INVALID_TOPIC_EXCEPTION;
                r.topics().add(error(rt.name(), Uuid.ZERO_UUID, err));
            }
        }
        return withTopicOperations(r, request, version);
    }

    /**
     * Without an authorizer every topic operation is allowed: when asked for (v8+), each topic
     * found reports all of them, as a Kafka broker without an authorizer does.
     */
    private static MetadataResponseData withTopicOperations(
            MetadataResponseData r, MetadataRequestData request, short version) {
        if (version >= 8 && request.includeTopicAuthorizedOperations()) {
            for (MetadataResponseTopic t : r.topics()) {
                if (t.errorCode() == Errors.NONE.code()) {
                    t.setTopicAuthorizedOperations(AuthorizedOperations.TOPIC);
                }
            }
        }
        return r;
    }

    /**
     * The topic list is the engine's memory; only an auto-creation writes (catalog, partition
     * folders), so only a request that may auto-create an unknown topic leaves the event loop.
     */
    @Override
    protected boolean mayBlock(MetadataRequestData request) {
        if (!autoCreate || request.topics() == null) {
            return false;
        }
        for (MetadataRequestData.MetadataRequestTopic rt : request.topics()) {
            if (rt.name() != null && topics.topic(rt.name()).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private static MetadataResponseTopic error(String name, Uuid id, Errors err) {
        return new MetadataResponseTopic()
                .setName(name)
                .setTopicId(id == null ? Uuid.ZERO_UUID : id)
                .setErrorCode(err.code());
    }

    private MetadataResponseTopic describe(TopicInfo t) {
        List<MetadataResponsePartition> parts = new ArrayList<>(t.partitions());
        List<Integer> replicas = List.of(metadata.nodeId());
        for (int i = 0; i < t.partitions(); i++) {
            parts.add(
                    new MetadataResponsePartition()
                            .setPartitionIndex(i)
                            .setLeaderId(metadata.nodeId())
                            .setLeaderEpoch(-1)
                            .setReplicaNodes(replicas)
                            .setIsrNodes(replicas)
                            .setOfflineReplicas(List.of()));
        }
        return new MetadataResponseTopic()
                .setName(t.name())
                .setTopicId(t.id())
                .setIsInternal(false)
                .setPartitions(parts);
    }
}
