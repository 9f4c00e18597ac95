package io.tierlog.server.admin;

import io.tierlog.common.Config;
import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.ServerOptions;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteTopics by name (v1-v5) or by name or id (v6): removes the topic's metadata and every
 * partition's data. {@code TOPIC_DELETION_DISABLED} when {@code delete.topic.enable=false}.
 * Thread-safe.
 */
final class DeleteTopicsHandler extends SyncApiHandler<DeleteTopicsRequestData> {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(DeleteTopicsHandler.class);

    private final Config config;
    private final TopicRegistry topics;

    DeleteTopicsHandler(Config config, TopicRegistry topics, Executor blockingExecutor) {
        super(ApiKeys.DELETE_TOPICS, 6, DeleteTopicsRequestData.class, blockingExecutor);
        this.config = config;
        this.topics = topics;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, DeleteTopicsRequestData request, short version)
            throws IOException {
        DeleteTopicsResponseData r = new DeleteTopicsResponseData();
        if (version >= 6) {
            for (DeleteTopicState s : request.topics()) {
                Optional<TopicInfo> t =
                        s.name() != null ? topics.topic(s.name()) : topics.topic(s.topicId());
                add(r, delete(t, s.name(), s.topicId(), s.name() != null));
            }
        } else {
            for (String name : request.topicNames()) {
                add(r, delete(topics.topic(name), name, Uuid.ZERO_UUID, true));
            }
        }
        return r;
    }

    /**
     * Deleting cold objects talks to the object store, and deleting thousands of partition folders
     * takes seconds: off the event loop.
     */
    @Override
    protected boolean mayBlock(DeleteTopicsRequestData request) {
        return true;
    }

    private static void add(DeleteTopicsResponseData r, DeletableTopicResult res) {
        if (r.responses().find(res.name()) == null) {
            r.responses().add(res);
        }
    }

    private DeletableTopicResult delete(Optional<TopicInfo> t, String name, Uuid id, boolean byName)
            throws IOException {
        DeletableTopicResult res =
                new DeletableTopicResult()
                        .setName(t.map(TopicInfo::name).orElse(name))
                        .setTopicId(t.map(TopicInfo::id).orElse(id == null ? Uuid.ZERO_UUID : id));
        if (!config.get(ServerOptions.DELETE_TOPIC_ENABLE)) {
            return res.setErrorCode(Errors.TOPIC_DELETION_DISABLED.code());
        }
        if (t.isEmpty()) {
            Errors e = byName ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.UNKNOWN_TOPIC_ID;
            return res.setErrorCode(e.code()).setErrorMessage(e.message());
        }
        try {
            // both tiers: hot partitions, catalog rows, then the cold objects (the sweeper
            // finishes what a failure leaves)
            topics.delete(t.get().name());
        } catch (ApiException e) {
            res.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        } catch (IOException | RuntimeException e) {
            // never a closed connection: the client learns which topic failed and why
            LOG.warn("DeleteTopics of {} failed", res.name(), e);
            res.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code())
                    .setErrorMessage("Cannot delete topic '" + res.name() + "': " + e);
        }
        return res;
    }
}
