package io.tierlog.server.fetch;

import io.tierlog.engine.TopicInfo;
import io.tierlog.server.dispatch.ApiHandlerBase;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.meta.MetadataService;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Fetch (v4-v16): resolves topics by name (or by id from v13), reads each partition from the {@link
 * io.tierlog.server.fetch.FetchSource} within the partition and response byte limits, and answers
 * at once when it has {@code min_bytes}, hit an error, or {@code max_wait_ms} is 0. Otherwise a
 * {@link DelayedFetch} waits until appends bring enough bytes or the wait expires (a marker append
 * wakes it too: it moves the last stable offset). {@code isolation_level} 1 (read_committed) reads
 * up to the last stable offset and fills {@code aborted_transactions}; 0 leaves it null; {@code
 * last_stable_offset} is the real LSO for both. Sessionless: every response has session id 0, so
 * clients send full requests. Thread-safe.
 */
final class FetchHandler extends ApiHandlerBase {
    private final MetadataService metadata;
    private final FetchSource source;
    private final FetchWaiters waiters;

    FetchHandler(MetadataService metadata, FetchSource source, FetchWaiters waiters) {
        super(ApiKeys.FETCH, 16);
        this.metadata = metadata;
        this.source = source;
        this.waiters = waiters;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
        FetchRequestData request = (FetchRequestData) message;
        short version = context.apiVersion();
        if (request.replicaId() >= 0 || request.replicaState().replicaId() >= 0) {
            return CompletableFuture.completedFuture(
                    FetchReader.topLevelError(Errors.NOT_LEADER_OR_FOLLOWER));
        }
        List<FetchReader.Target> targets = resolve(request, version);
        FetchReader reader =
                new FetchReader(
                        source,
                        targets,
                        request.maxBytes() <= 0 ? Integer.MAX_VALUE : request.maxBytes(),
                        request.isolationLevel() == 1,
                        version >= 13);
        // Cold partitions complete later on the engine's threads; the chain resumes on this
        // connection's event loop and never blocks it.
        return reader.readAsync(context.executor(), true)
                .thenCompose(
                        first -> {
                            if (request.maxWaitMs() <= 0
                                    || first.bytes() >= Math.max(1, request.minBytes())
                                    || first.hasError()
                                    || targets.isEmpty()) {
                                return CompletableFuture.completedFuture(first.response());
                            }
                            // Nothing to release: file-backed records hold no buffers until
                            // serialised.
                            return new DelayedFetch(
                                            reader,
                                            Math.max(1, request.minBytes()),
                                            request.maxWaitMs(),
                                            waiters,
                                            context.executor(),
                                            context.closeFuture())
                                    .start();
                        });
    }

    private List<FetchReader.Target> resolve(FetchRequestData request, short version) {
        List<FetchReader.Target> targets = new ArrayList<>();
        for (FetchTopic ft : request.topics()) {
            Optional<TopicInfo> meta;
            Errors missing;
            if (version >= 13) {
                meta = metadata.topic(ft.topicId());
                missing = Errors.UNKNOWN_TOPIC_ID;
            } else {
                meta = metadata.topic(ft.topic());
                missing = Errors.UNKNOWN_TOPIC_OR_PARTITION;
            }
            String name = meta.map(TopicInfo::name).orElse(ft.topic());
            Uuid id = meta.map(TopicInfo::id).orElse(ft.topicId());
            for (FetchPartition fp : ft.partitions()) {
                Errors err = Errors.NONE;
                if (meta.isEmpty()) {
                    err = missing;
                } else if (fp.partition() < 0 || fp.partition() >= meta.get().partitions()) {
                    err = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                }
                targets.add(
                        new FetchReader.Target(
                                name,
                                id,
                                err == Errors.NONE
                                        ? new TopicPartition(name, fp.partition())
                                        : null,
                                fp.partition(),
                                fp.fetchOffset(),
                                fp.partitionMaxBytes(),
                                err));
            }
        }
        return targets;
    }
}
