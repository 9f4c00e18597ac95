package io.tierlog.server.cli;

import io.tierlog.engine.OffloadDaemon;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.kafka.common.TopicPartition;

/**
 * A terminal progress bar of the pass's backlog bytes with throughput and ETA (me.tongfei
 * progressbar, on stderr), then the summary on stdout. Thread-safe: the bar is replaced and stepped
 * under this object's lock.
 */
final class BarReporter extends ProgressReporter {
    private ProgressBar bar; // guarded by this

    @Override
    public synchronized void onPassStarted(long backlogBytes) {
        closeBar();
        if (backlogBytes <= 0) {
            return;
        }
        bar =
                new ProgressBarBuilder()
                        .setTaskName("offload")
                        .setInitialMax(backlogBytes)
                        .setUnit(" MiB", 1024 * 1024)
                        .setStyle(ProgressBarStyle.ASCII)
                        .showSpeed()
                        .setUpdateIntervalMillis(250)
                        .build();
    }

    @Override
    public synchronized void onObjectCommitted(OffloadDaemon.Committed r) {
        if (bar != null) {
            bar.stepBy(r.sourceBytes());
            bar.setExtraMessage(r.tp() + " @" + r.lastOffset());
        }
    }

    @Override
    public synchronized void onPartitionFailed(TopicPartition tp, Exception error) {
        System.err.println("\nFAILED " + tp + ": " + error.getMessage());
    }

    @Override
    public synchronized void onPassFinished(OffloadDaemon.Pass result) {
        closeBar();
    }

    private void closeBar() {
        if (bar != null) {
            bar.close();
            bar = null;
        }
    }

    @Override
    synchronized void summary(OffloadDaemon.Pass result) {
        closeBar();
        System.out.println(summaryLine(result));
    }
}
