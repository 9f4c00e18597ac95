package io.tierlog.compactor.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.ObjectStore;
import io.tierlog.compactor.BatchStream;
import io.tierlog.compactor.SegmentSource;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Writes Kafka-layout segment files ({@code <dir>/<topic>-<p>/<20-digit base>.log}, batches back to
 * back) and serves them as a {@link SegmentSource}: the last segment of a partition is active until
 * {@link #roll} closes it. A test fixture that stands in for a broker's log dir without a broker.
 * Thread-safe (synchronized).
 */
public final class SegmentFiles implements SegmentSource {
    private static final CompressionType[] CODECS = {
        CompressionType.NONE,
        CompressionType.GZIP,
        CompressionType.SNAPPY,
        CompressionType.LZ4,
        CompressionType.ZSTD
    };

    private final Path dir;
    private final Random random;
    private final Map<TopicPartition, List<SegmentInfo>> segments =
            new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    private final Map<TopicPartition, Long> nextOffset =
            new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    private long timestamp = 1_700_000_000_000L;

    public SegmentFiles(Path dir, long seed) {
        this.dir = dir;
        this.random = new Random(seed);
    }

    public Path dir() {
        return dir;
    }

    /** Starts a partition's log at {@code logStartOffset} (a Kafka log whose start moved). */
    public synchronized void startAt(TopicPartition tp, long logStartOffset) {
        if (segments.containsKey(tp)) {
            throw new IllegalStateException(tp + " already has segments");
        }
        nextOffset.put(tp, logStartOffset);
    }

    /**
     * Appends {@code batches} batches of {@code records} records with {@code valueBytes}-byte
     * values (codecs rotate; some keys null, some headers) to the partition's active segment.
     */
    public synchronized void append(TopicPartition tp, int batches, int records, int valueBytes)
            throws IOException {
        for (int b = 0; b < batches; b++) {
            long base = nextOffset.getOrDefault(tp, 0L);
            SimpleRecord[] recs = new SimpleRecord[records];
            for (int i = 0; i < records; i++) {
                byte[] value = new byte[valueBytes];
                for (int j = 0; j < valueBytes; j++) {
                    value[j] = (byte) ('a' + random.nextInt(26));
                }
                byte[] key =
                        random.nextInt(4) == 0
                                ? null
                                : ("k" + (base + i)).getBytes(StandardCharsets.UTF_8);
                Header[] headers =
                        random.nextInt(3) == 0
                                ? new Header[] {
                                    new RecordHeader(
                                            "h", ("v" + i).getBytes(StandardCharsets.UTF_8))
                                }
                                : new Header[0];
                recs[i] = new SimpleRecord(timestamp++, key, value, headers);
            }
            CompressionType codec = CODECS[random.nextInt(CODECS.length)];
            MemoryRecords mr = MemoryRecords.withRecords(base, Compression.of(codec).build(), recs);
            write(tp, base, base + records, mr.buffer(), timestamp - 1);
        }
    }

    /**
     * Appends one batch of {@code keyValues} (pairs: key, value; a null value is a tombstone) at
     * the partition's next offset, uncompressed or {@code codec}, with increasing timestamps.
     */
    public synchronized void appendKeyed(
            TopicPartition tp, CompressionType codec, String... keyValues) throws IOException {
        long base = nextOffset.getOrDefault(tp, 0L);
        SimpleRecord[] recs = new SimpleRecord[keyValues.length / 2];
        for (int i = 0; i < recs.length; i++) {
            String k = keyValues[2 * i];
            String v = keyValues[2 * i + 1];
            recs[i] =
                    new SimpleRecord(
                            timestamp++,
                            k == null ? null : k.getBytes(StandardCharsets.UTF_8),
                            v == null ? null : v.getBytes(StandardCharsets.UTF_8));
        }
        MemoryRecords mr = MemoryRecords.withRecords(base, Compression.of(codec).build(), recs);
        write(tp, base, base + recs.length, mr.buffer(), timestamp - 1);
    }

    private void write(TopicPartition tp, long base, long next, ByteBuffer bytes, long maxTs)
            throws IOException {
        List<SegmentInfo> list = segments.computeIfAbsent(tp, k -> new ArrayList<>());
        SegmentInfo active = list.isEmpty() ? null : list.get(list.size() - 1);
        if (active == null || active.closed()) {
            Path partDir = dir.resolve(tp.topic() + "-" + tp.partition());
            Files.createDirectories(partDir);
            Path file = partDir.resolve(String.format("%020d.log", base));
            Files.createFile(file);
            active = new SegmentInfo(tp, base, base, 0, -1, false, file);
            list.add(active);
        }
        int size = bytes.remaining();
        try (FileChannel ch = FileChannel.open(active.logFile(), StandardOpenOption.APPEND)) {
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
        }
        list.set(
                list.size() - 1,
                new SegmentInfo(
                        tp,
                        active.baseOffset(),
                        next,
                        active.sizeInBytes() + size,
                        Math.max(active.maxTimestamp(), maxTs),
                        false,
                        active.logFile()));
        nextOffset.put(tp, next);
    }

    /** Closes the partition's active segment; the next append starts a new one. */
    public synchronized void roll(TopicPartition tp) {
        List<SegmentInfo> list = segments.get(tp);
        if (list == null || list.isEmpty()) {
            return;
        }
        SegmentInfo s = list.get(list.size() - 1);
        list.set(
                list.size() - 1,
                new SegmentInfo(
                        tp,
                        s.baseOffset(),
                        s.nextOffset(),
                        s.sizeInBytes(),
                        s.maxTimestamp(),
                        true,
                        s.logFile()));
    }

    /** Drops the partition's oldest segment (local retention). */
    public synchronized void deleteOldest(TopicPartition tp) throws IOException {
        SegmentInfo s = segments.get(tp).remove(0);
        Files.delete(s.logFile());
    }

    public synchronized long nextOffset(TopicPartition tp) {
        return nextOffset.getOrDefault(tp, 0L);
    }

    /** Every batch of the partition (all segments), for comparisons. */
    public synchronized List<RecordBatch> allBatches(TopicPartition tp) throws IOException {
        List<RecordBatch> out = new ArrayList<>();
        for (SegmentInfo s : segments.getOrDefault(tp, List.of())) {
            ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(s.logFile()));
            MemoryRecords.readableRecords(buf).batches().forEach(out::add);
        }
        return out;
    }

    @Override
    public synchronized List<TopicPartition> partitions() {
        return new ArrayList<>(segments.keySet());
    }

    @Override
    public synchronized List<SegmentInfo> segments(TopicPartition tp) {
        return new ArrayList<>(segments.getOrDefault(tp, List.of()));
    }

    @Override
    public BatchStream batches(SegmentInfo segment) throws IOException {
        FileChannel ch = FileChannel.open(segment.logFile(), StandardOpenOption.READ);
        return new BatchStream(ch, 0, segment.sizeInBytes(), ch);
    }

    /** Generated batches are never transactional: nothing holds the offload back. */
    @Override
    public long lastStableOffset(TopicPartition tp) {
        return Long.MAX_VALUE;
    }

    @Override
    public List<io.tierlog.hot.AbortedTxn> abortedTransactions(
            TopicPartition tp, long from, long upTo) {
        return List.of();
    }

    @Override
    public java.util.Optional<io.tierlog.hot.OngoingTxn> oldestOpenTransaction(TopicPartition tp) {
        return java.util.Optional.empty();
    }

    @Override
    public String describe() {
        return "segment files in " + dir;
    }

    /**
     * Asserts that the cold tier holds partition {@code tp} exactly once: its cold high watermark
     * is this log's next offset, and its objects read back to this log's batches.
     */
    public void assertOffloadedOnce(TopicPartition tp, Catalog catalog, ObjectStore store)
            throws IOException {
        assertThat(catalog.partitionState(tp.topic(), tp.partition()).coldHighWatermark())
                .as("cold high watermark of %s", tp)
                .isEqualTo(nextOffset(tp));
        assertThat(describe(ColdTierFixture.readBack(store, catalog, tp.topic(), tp.partition())))
                .as("cold copy of %s", tp)
                .isEqualTo(describe(allBatches(tp)));
    }

    @Override
    public void close() {}

    /** Records of a batch list as comparable strings (offset, timestamp, key, value, headers). */
    public static List<String> describe(Iterable<? extends RecordBatch> batches) {
        List<String> out = new ArrayList<>();
        for (RecordBatch b : batches) {
            for (org.apache.kafka.common.record.internal.Record r : b) {
                StringBuilder sb = new StringBuilder();
                sb.append(r.offset()).append('@').append(r.timestamp()).append(' ');
                sb.append(
                        r.hasKey() ? StandardCharsets.UTF_8.decode(r.key()).toString() : "<null>");
                sb.append('=')
                        .append(
                                r.hasValue()
                                        ? StandardCharsets.UTF_8.decode(r.value()).toString()
                                        : "<null>");
                for (Header h : r.headers()) {
                    sb.append(' ')
                            .append(h.key())
                            .append(':')
                            .append(new String(h.value(), StandardCharsets.UTF_8));
                }
                out.add(sb.toString());
            }
        }
        return out;
    }
}
