package io.tierlog.hot;

import io.tierlog.common.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's {@code recovery-point-offset-checkpoint} file in a log dir: text, UTF-8, one item per
 * line:
 *
 * <pre>
 *   0                                  version
 *   N                                  number of entries
 *   &lt;topic&gt; &lt;partition&gt; &lt;offset&gt;      N lines, space separated
 * </pre>
 *
 * Written to a {@code .tmp} file, fsynced and atomically renamed over the old one, as Kafka's
 * {@code CheckpointFile}. Also defines the clean-shutdown marker {@code .kafka_cleanshutdown}.
 *
 * <p>Stateless apart from the path; callers serialise writes (the LogManager does).
 */
final class RecoveryPointCheckpoint {
    static final String FILE_NAME = "recovery-point-offset-checkpoint";

    /**
     * tierlog's own file of the same format: each partition's log end offset as of the last
     * checkpoint, so that a recovery that loses the tail never assigns those offsets again.
     */
    static final String LOG_END_FILE_NAME = "log-end-offset-checkpoint";

    static final String CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
    private static final int VERSION = 0;

    private final Path file;

    RecoveryPointCheckpoint(Path logDir) {
        this(logDir, FILE_NAME);
    }

    /** A checkpoint file of this format named {@code fileName} in {@code logDir}. */
    RecoveryPointCheckpoint(Path logDir, String fileName) {
        this.file = logDir.resolve(fileName);
    }

    /** Reads the checkpoint; an absent file is empty, a malformed one is an IOException. */
    Map<TopicPartition, Long> read() throws IOException {
        Map<TopicPartition, Long> out = new HashMap<>();
        if (!Files.exists(file)) {
            return out;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        try {
            if (lines.size() < 2 || Integer.parseInt(lines.get(0).trim()) != VERSION) {
                throw new IOException("Unsupported checkpoint version in " + file);
            }
            int n = Integer.parseInt(lines.get(1).trim());
            if (lines.size() < 2 + n) {
                throw new IOException("Checkpoint " + file + " declares " + n + " entries");
            }
            for (int i = 0; i < n; i++) {
                String[] f = lines.get(2 + i).trim().split(" ");
                if (f.length != 3) {
                    throw new IOException("Malformed line " + (i + 3) + " of " + file);
                }
                out.put(new TopicPartition(f[0], Integer.parseInt(f[1])), Long.parseLong(f[2]));
            }
        } catch (NumberFormatException e) {
            throw new IOException("Malformed checkpoint " + file + ": " + e.getMessage(), e);
        }
        return out;
    }

    void write(Map<TopicPartition, Long> offsets) throws IOException {
        StringBuilder text = new StringBuilder();
        text.append(VERSION).append('\n');
        text.append(offsets.size()).append('\n');
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            text.append(e.getKey().topic())
                    .append(' ')
                    .append(e.getKey().partition())
                    .append(' ')
                    .append(e.getValue())
                    .append('\n');
        }
        AtomicFiles.write(file, text.toString().getBytes(StandardCharsets.UTF_8));
    }

    static void fsyncDir(Path dir) {
        AtomicFiles.fsyncDir(dir);
    }
}
