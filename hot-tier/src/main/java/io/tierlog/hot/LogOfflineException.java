package io.tierlog.hot;

import java.io.IOException;
import org.apache.kafka.common.TopicPartition;

/**
 * The partition's log is offline after a storage fault (a failed write, fsync or roll), as Kafka
 * takes a log dir offline: appends and reads fail with this until a periodic recovery reopens it
 * from disk ({@link PartitionLog#maybeRecover()}). The server answers {@code KAFKA_STORAGE_ERROR},
 * which clients retry. The cause is the fault that took it offline.
 */
public final class LogOfflineException extends IOException {
    private final TopicPartition tp;

    public LogOfflineException(TopicPartition tp, Throwable cause) {
        super("Log of " + tp + " is offline after a storage error: " + cause, cause);
        this.tp = tp;
    }

    public TopicPartition topicPartition() {
        return tp;
    }
}
