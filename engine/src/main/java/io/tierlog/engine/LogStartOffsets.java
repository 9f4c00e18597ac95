package io.tierlog.engine;

import io.tierlog.common.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code <data.dir>/meta/log-start-offsets}: a copy of the log start offsets DeleteRecords moved,
 * for {@code tierlog catalog rebuild} (the catalog's {@code partitions.log_start} is the source of
 * truth; a rebuilt catalog gets them back from here, so that a rebuild neither serves deleted
 * records again nor stumbles on the gaps a half-finished sweep leaves below them).
 *
 * <p>Format, UTF-8 text in the shape of Kafka's offset checkpoints: a line {@code 0} (version), a
 * line with the entry count N, then N lines {@code <topic> <partition> <offset> <topic id>}, the
 * topic id a UUID string so that a topic deleted and created again under its name does not inherit
 * the old start. Written to {@code .tmp}, fsynced and renamed over the old file after each
 * DeleteRecords (after its catalog commit), and pruned of deleted topics at every write.
 *
 * <p>Thread-safe (writers serialise on the instance).
 */
final class LogStartOffsets {
    private static final Logger LOG = LoggerFactory.getLogger(LogStartOffsets.class);
    static final String FILE = "log-start-offsets";
    private static final int VERSION = 0;

    /** One partition's log start, for a topic of the given id. */
    record Entry(TopicPartition tp, long offset, UUID topicId) {}

    private final Path file;

    LogStartOffsets(Path dataDir) {
        this.file = dataDir.resolve("meta").resolve(FILE);
    }

    /**
     * Records {@code offset} for {@code tp} and keeps only the entries of {@code topics} (name to
     * id) as they are now.
     */
    synchronized void record(TopicPartition tp, long offset, UUID topicId, Map<String, UUID> topics)
            throws IOException {
        Map<TopicPartition, Entry> all = new TreeMap<>(LogStartOffsets::compare);
        for (Entry e : read(file)) {
            if (topicId(topics, e.tp().topic()).filter(e.topicId()::equals).isPresent()) {
                all.put(e.tp(), e);
            }
        }
        all.merge(
                tp,
                new Entry(tp, offset, topicId),
                (a, b) -> a.offset() >= b.offset() && a.topicId().equals(b.topicId()) ? a : b);
        write(all.values());
    }

    private static Optional<UUID> topicId(Map<String, UUID> topics, String name) {
        return Optional.ofNullable(topics.get(name));
    }

    private static int compare(TopicPartition a, TopicPartition b) {
        int c = a.topic().compareTo(b.topic());
        return c != 0 ? c : Integer.compare(a.partition(), b.partition());
    }

    private void write(Collection<Entry> entries) throws IOException {
        Files.createDirectories(file.getParent());
        StringBuilder sb = new StringBuilder();
        sb.append(VERSION).append('\n').append(entries.size()).append('\n');
        for (Entry e : entries) {
            sb.append(e.tp().topic())
                    .append(' ')
                    .append(e.tp().partition())
                    .append(' ')
                    .append(e.offset())
                    .append(' ')
                    .append(e.topicId())
                    .append('\n');
        }
        AtomicFiles.write(file, sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The entries of the file under {@code dataDir}; none if it is absent or unreadable. */
    static List<Entry> readFrom(Path dataDir) {
        return read(dataDir.resolve("meta").resolve(FILE));
    }

    private static List<Entry> read(Path file) {
        List<Entry> out = new ArrayList<>();
        if (!Files.exists(file)) {
            return out;
        }
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (lines.size() < 2 || Integer.parseInt(lines.get(0).trim()) != VERSION) {
                throw new IllegalArgumentException("not version " + VERSION);
            }
            int n = Integer.parseInt(lines.get(1).trim());
            for (int i = 0; i < n; i++) {
                String[] f = lines.get(2 + i).trim().split(" ");
                out.add(
                        new Entry(
                                new TopicPartition(f[0], Integer.parseInt(f[1])),
                                Long.parseLong(f[2]),
                                UUID.fromString(f[3])));
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("ignoring unreadable {}: {}", file, e.toString());
            out.clear();
        }
        return out;
    }
}
