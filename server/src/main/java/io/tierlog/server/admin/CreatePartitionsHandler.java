package io.tierlog.server.admin;

import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.MetadataService;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreatePartitions v0-v3: raises a topic's partition count (both tiers: catalog row, then the new
 * hot partitions), checked as Kafka's controller checks it: {@code INVALID_PARTITIONS} unless the
 * count grows (and stays at most {@link TopicRegistry#MAX_PARTITIONS}), {@code
 * UNKNOWN_TOPIC_OR_PARTITION} for a missing topic, {@code INVALID_REQUEST} for a topic named twice;
 * manual assignments must give one list per new partition naming this node only ({@code
 * INVALID_REPLICA_ASSIGNMENT} otherwise: one server holds one replica of everything). {@code
 * validate_only} checks without changing anything. Thread-safe.
 */
final class CreatePartitionsHandler extends SyncApiHandler<CreatePartitionsRequestData> {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(CreatePartitionsHandler.class);

    private final MetadataService metadata;
    private final TopicRegistry topics;

    CreatePartitionsHandler(
            MetadataService metadata, TopicRegistry topics, Executor blockingExecutor) {
        super(ApiKeys.CREATE_PARTITIONS, 3, CreatePartitionsRequestData.class, blockingExecutor);
        this.metadata = metadata;
        this.topics = topics;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, CreatePartitionsRequestData request, short version)
            throws IOException {
        CreatePartitionsResponseData r = new CreatePartitionsResponseData();
        Set<String> seen = new HashSet<>();
        Set<String> duplicated = new HashSet<>();
        for (CreatePartitionsTopic t : request.topics()) {
            if (!seen.add(t.name())) {
                duplicated.add(t.name());
            }
        }
        Set<String> answered = new HashSet<>();
        for (CreatePartitionsTopic t : request.topics()) {
            if (!answered.add(t.name())) {
                continue;
            }
            CreatePartitionsTopicResult res = new CreatePartitionsTopicResult().setName(t.name());
            if (duplicated.contains(t.name())) {
                error(res, Errors.INVALID_REQUEST, "Duplicate topic name.");
            } else {
                grow(t, request.validateOnly(), res);
            }
            r.results().add(res);
        }
        return r;
    }

    private void grow(
            CreatePartitionsTopic t, boolean validateOnly, CreatePartitionsTopicResult res)
            throws IOException {
        Optional<TopicInfo> current = topics.topic(t.name());
        if (current.isEmpty()) {
            error(
                    res,
                    Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "This server does not host this topic-partition.");
            return;
        }
        int have = current.get().partitions();
        if (t.count() < have) {
            error(
                    res,
                    Errors.INVALID_PARTITIONS,
                    "The topic "
                            + t.name()
                            + " currently has "
                            + have
                            + " partition(s); "
                            + t.count()
                            + " would not be an increase.");
            return;
        }
        if (t.count() == have) {
            error(res, Errors.INVALID_PARTITIONS, "Topic already has " + have + " partition(s).");
            return;
        }
        if (t.count() > TopicRegistry.MAX_PARTITIONS) {
            error(
                    res,
                    Errors.INVALID_PARTITIONS,
                    "A topic may have at most " + TopicRegistry.MAX_PARTITIONS + " partitions.");
            return;
        }
        String bad = checkAssignments(t.assignments(), t.count() - have);
        if (bad != null) {
            error(res, Errors.INVALID_REPLICA_ASSIGNMENT, bad);
            return;
        }
        if (validateOnly) {
            return;
        }
        try {
            topics.addPartitions(t.name(), t.count());
            LOG.info("topic {}: partitions raised from {} to {}", t.name(), have, t.count());
        } catch (ApiException e) {
            error(res, Errors.forException(e), e.getMessage());
        } catch (IOException | RuntimeException e) {
            // never a closed connection: the client learns which topic failed and why
            LOG.warn("CreatePartitions of {} failed", t.name(), e);
            error(
                    res,
                    Errors.KAFKA_STORAGE_ERROR,
                    "Cannot add partitions to '" + t.name() + "': " + e);
        }
    }

    /** Kafka's manual-assignment checks, for a cluster of this one node; null when acceptable. */
    private String checkAssignments(List<CreatePartitionsAssignment> assignments, int added) {
        if (assignments == null) {
            return null;
        }
        if (assignments.size() != added) {
            return "Attempted to add "
                    + added
                    + " additional partition(s), but only "
                    + assignments.size()
                    + " assignment(s) were specified.";
        }
        for (CreatePartitionsAssignment a : assignments) {
            for (int broker : a.brokerIds()) {
                if (broker != metadata.nodeId()) {
                    return "The manual partition assignment includes broker "
                            + broker
                            + ", but no broker with that ID was found.";
                }
            }
            if (a.brokerIds().size() != 1) {
                return "The manual partition assignment includes a partition with "
                        + a.brokerIds().size()
                        + " replica(s), but this is not consistent with previous partitions,"
                        + " which have 1 replica(s).";
            }
        }
        return null;
    }

    private static void error(CreatePartitionsTopicResult res, Errors e, String message) {
        res.setErrorCode(e.code()).setErrorMessage(message);
    }

    /** Creates partition folders and writes the catalog: off the event loop. */
    @Override
    protected boolean mayBlock(CreatePartitionsRequestData request) {
        return true;
    }
}
