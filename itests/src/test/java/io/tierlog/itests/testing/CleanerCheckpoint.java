package io.tierlog.itests.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reads Kafka's {@code cleaner-offset-checkpoint} in the root of a log dir (line {@code 0}, then
 * the number of entries, then one {@code topic partition offset} line per partition): the first
 * dirty offset the log cleaner reached. Apache Kafka and tierlog's hot tier write the same format,
 * so a test can wait for "the cleaner has cleaned up to here" the same way on both.
 *
 * <p>Thread-safety: stateless. A checkpoint is replaced by a rename, so a read sees a whole file.
 */
public final class CleanerCheckpoint {
    /** The file name, as Kafka names it. */
    public static final String FILE = "cleaner-offset-checkpoint";

    private CleanerCheckpoint() {}

    /**
     * The checkpointed first dirty offset of {@code topic}-{@code partition} under {@code logDir},
     * empty when there is no checkpoint file or no line for the partition yet.
     */
    public static OptionalLong firstDirtyOffset(Path logDir, String topic, int partition)
            throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(logDir.resolve(FILE), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        }
        for (int i = 2; i < lines.size(); i++) {
            String[] f = lines.get(i).trim().split(" ");
            if (f.length == 3 && f[0].equals(topic) && f[1].equals(Integer.toString(partition))) {
                return OptionalLong.of(Long.parseLong(f[2]));
            }
        }
        return OptionalLong.empty();
    }

    /**
     * Whether the cleaner has checkpointed {@code topic}-{@code partition} at or past {@code
     * offset}.
     */
    public static boolean cleanedTo(Path logDir, String topic, int partition, long offset)
            throws IOException {
        OptionalLong o = firstDirtyOffset(logDir, topic, partition);
        return o.isPresent() && o.getAsLong() >= offset;
    }
}
