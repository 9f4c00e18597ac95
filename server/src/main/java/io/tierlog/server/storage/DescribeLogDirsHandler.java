package io.tierlog.server.storage;

import io.tierlog.engine.TieredLog;
import io.tierlog.engine.TopicInfo;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeLogDirs v1-v5: the one log dir of this node, the hot tier's {@code <data.dir>/log}, with
 * the hot bytes of each partition asked for (all of them when the request names no topics; a
 * partition that does not exist is left out, as Kafka leaves it out). Offset lag is 0 and no log is
 * a future one (a single node has no replica to move); the volume's total and usable bytes (v4+)
 * are the file store's. Bytes in the cold tier are not counted, as Kafka counts no remote bytes.
 * Thread-safe.
 */
final class DescribeLogDirsHandler extends SyncApiHandler<DescribeLogDirsRequestData> {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(DescribeLogDirsHandler.class);

    private final TieredLog engine;

    DescribeLogDirsHandler(TieredLog engine, Executor blockingExecutor) {
        super(ApiKeys.DESCRIBE_LOG_DIRS, 5, DescribeLogDirsRequestData.class, blockingExecutor);
        this.engine = engine;
    }

    @Override
    public short minVersion() {
        return 1; // v0 was removed in Kafka 4.0
    }

    /** The file store query is a statfs system call: off the event loop. */
    @Override
    protected boolean mayBlock(DescribeLogDirsRequestData request) {
        return true;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, DescribeLogDirsRequestData request, short version) {
        Path dir = engine.hotLogDir();
        DescribeLogDirsResult result =
                new DescribeLogDirsResult()
                        .setLogDir(dir.toString())
                        .setErrorCode(Errors.NONE.code());
        if (request.topics() == null) {
            for (String name : engine.topics()) {
                Optional<TopicInfo> t = engine.topic(name);
                if (t.isPresent()) {
                    addTopic(result, name, partitions(t.get().partitions()));
                }
            }
        } else {
            for (DescribableLogDirTopic t : request.topics()) {
                addTopic(result, t.topic(), t.partitions());
            }
        }
        try {
            FileStore store = Files.getFileStore(dir);
            result.setTotalBytes(store.getTotalSpace()).setUsableBytes(store.getUsableSpace());
        } catch (IOException e) {
            LOG.warn("cannot read the size of the volume of {}: {}", dir, e.toString());
        }
        return new DescribeLogDirsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setResults(List.of(result));
    }

    private void addTopic(DescribeLogDirsResult result, String name, List<Integer> partitions) {
        DescribeLogDirsTopic topic = new DescribeLogDirsTopic().setName(name);
        for (int p : partitions) {
            long size;
            try {
                size = engine.hotSizeInBytes(new TopicPartition(name, p));
            } catch (UnknownTopicOrPartitionException e) {
                continue;
            }
            topic.partitions()
                    .add(
                            new DescribeLogDirsPartition()
                                    .setPartitionIndex(p)
                                    .setPartitionSize(size)
                                    .setOffsetLag(0)
                                    .setIsFutureKey(false));
        }
        if (!topic.partitions().isEmpty()) {
            result.topics().add(topic);
        }
    }

    private static List<Integer> partitions(int count) {
        return java.util.stream.IntStream.range(0, count).boxed().toList();
    }
}
