package io.tierlog.server.api;

import io.tierlog.server.fetch.FetchSource;
import io.tierlog.server.fetch.PartitionRead;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the partitions of one fetch request into a {@link FetchResponseData}, applying Kafka's
 * limits: each partition gets at most its {@code partition_max_bytes}, the whole response at most
 * {@code max_bytes}, except that the first batch of the first partition with data is returned even
 * when larger (so consumers always progress); later partitions get no records once the response is
 * full. Can be re-run (a delayed fetch reads again when woken). Not thread-safe: one owner.
 */
final class FetchReader {
    private static final Logger log = LoggerFactory.getLogger(FetchReader.class);

    /** One requested partition, resolved. {@code tp} is null when {@code error} is set. */
    record Target(
            String topic,
            Uuid topicId,
            TopicPartition tp,
            int partition,
            long fetchOffset,
            int partitionMaxBytes,
            Errors error) {}

    /** One read: the response, its record bytes, and whether a partition failed. */
    record Result(FetchResponseData response, long bytes, boolean hasError) {}

    private final FetchSource source;
    private final List<Target> targets;
    private final int maxBytes;
    private final boolean readCommitted;
    private final boolean byTopicId;

    FetchReader(
            FetchSource source,
            List<Target> targets,
            int maxBytes,
            boolean readCommitted,
            boolean byTopicId) {
        this.source = source;
        this.targets = targets;
        this.maxBytes = maxBytes;
        this.readCommitted = readCommitted;
        this.byTopicId = byTopicId;
    }

    List<TopicPartition> partitions() {
        List<TopicPartition> out = new ArrayList<>();
        for (Target t : targets) {
            if (t.tp() != null) {
                out.add(t.tp());
            }
        }
        return out;
    }

    static FetchResponseData topLevelError(Errors error) {
        return new FetchResponseData().setErrorCode(error.code()).setSessionId(0);
    }

    Result read() {
        FetchResponseData response = new FetchResponseData().setSessionId(0);
        FetchableTopicResponse current = null;
        long bytes = 0;
        boolean hasError = false;
        for (Target t : targets) {
            if (current == null
                    || !Objects.equals(current.topic(), t.topic())
                    || !Objects.equals(current.topicId(), t.topicId())) {
                current = new FetchableTopicResponse();
                if (byTopicId) {
                    current.setTopicId(t.topicId());
                } else {
                    current.setTopic(t.topic());
                }
                // Keep the name too (it is not serialised from v13) to group targets.
                current.setTopic(t.topic());
                response.responses().add(current);
            }
            PartitionData pd =
                    new PartitionData()
                            .setPartitionIndex(t.partition())
                            .setHighWatermark(-1)
                            .setLastStableOffset(-1)
                            .setLogStartOffset(-1)
                            .setAbortedTransactions(readCommitted ? new ArrayList<>() : null)
                            .setRecords(MemoryRecords.EMPTY);
            current.partitions().add(pd);
            if (t.error() != Errors.NONE) {
                pd.setErrorCode(t.error().code());
                hasError = true;
                continue;
            }
            long remaining = maxBytes - bytes;
            try {
                if (remaining <= 0) {
                    setOffsets(pd, source.offsets(t.tp()));
                    continue;
                }
                int limit = (int) Math.min(t.partitionMaxBytes(), remaining);
                PartitionRead read = source.read(t.tp(), t.fetchOffset(), Math.max(1, limit));
                setOffsets(pd, read);
                int size = read.sizeInBytes();
                // Only the first data of the response may exceed the limits (KIP-74).
                if (size > 0 && (bytes == 0 || size <= limit)) {
                    pd.setRecords(read.records());
                    bytes += size;
                }
            } catch (ApiException e) {
                pd.setErrorCode(Errors.forException(e).code());
                hasError = true;
                if (e instanceof org.apache.kafka.common.errors.OffsetOutOfRangeException) {
                    try {
                        setOffsets(pd, source.offsets(t.tp()));
                    } catch (ApiException ignored) {
                        // The partition vanished meanwhile; the error code says enough.
                    }
                }
            } catch (IOException | RuntimeException e) {
                log.error("fetch of {} at {} failed", t.tp(), t.fetchOffset(), e);
                pd.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
                hasError = true;
            }
        }
        return new Result(response, bytes, hasError);
    }

    private static void setOffsets(PartitionData pd, PartitionRead read) {
        pd.setHighWatermark(read.highWatermark())
                .setLastStableOffset(read.lastStableOffset())
                .setLogStartOffset(read.logStartOffset());
    }
}
