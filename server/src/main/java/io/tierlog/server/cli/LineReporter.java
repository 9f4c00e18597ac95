package io.tierlog.server.cli;

import io.tierlog.engine.OffloadDaemon;
import java.io.PrintStream;
import org.apache.kafka.common.TopicPartition;

/** One line per committed object and a summary: for logs and pipes. Thread-safe. */
final class LineReporter extends ProgressReporter {
    private final PrintStream out;

    LineReporter(PrintStream out) {
        this.out = out;
    }

    @Override
    public void onPassStarted(long backlogBytes) {
        if (backlogBytes > 0) {
            out.println("backlog " + bytes(backlogBytes) + " of closed segments");
        }
    }

    @Override
    public void onObjectCommitted(OffloadDaemon.Committed r) {
        synchronized (out) {
            out.println(
                    "committed "
                            + r.tp()
                            + " offsets "
                            + r.firstOffset()
                            + ".."
                            + r.lastOffset()
                            + " ("
                            + r.recordCount()
                            + " records, "
                            + bytes(r.sourceBytes())
                            + " -> "
                            + bytes(r.objectBytes())
                            + ") "
                            + r.key());
        }
    }

    @Override
    public void onPartitionFailed(TopicPartition tp, Exception error) {
        out.println("FAILED " + tp + ": " + error.getMessage());
    }

    @Override
    void summary(OffloadDaemon.Pass result) {
        out.println(summaryLine(result));
    }
}
