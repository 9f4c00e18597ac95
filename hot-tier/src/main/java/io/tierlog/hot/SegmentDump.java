package io.tierlog.hot;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/**
 * Prints a segment file as Kafka's {@code kafka-dump-log} does: batches (and records with {@code
 * deep}, with the marker of a control batch) of a {@code .log}, entries of a {@code .index}, {@code
 * .timeindex} or {@code .txnindex}. A torn or corrupt tail is reported, not thrown. Reads only;
 * never writes the file.
 *
 * <p>Stateless; thread-safe.
 */
public final class SegmentDump {
    private SegmentDump() {}

    /**
     * What a dump found in a {@code .log} file: the valid prefix, and why the scan stopped before
     * the end (null when the whole file is valid). Index files are always fully "valid".
     */
    public record Summary(long fileBytes, long validBytes, String stopReason) {
        /** Whether a non-empty file holds not one valid batch (it is not a log segment at all). */
        public boolean nothingValid() {
            return fileBytes > 0 && validBytes == 0;
        }
    }

    /**
     * @throws IllegalArgumentException when the file is not a {@code .log}, {@code .index} or
     *     {@code .timeindex} named by a 20-digit base offset (nothing is printed then)
     */
    public static Summary dump(Path file, PrintStream out, boolean deep) throws IOException {
        String name = file.getFileName().toString();
        if (name.endsWith(LogSegment.LOG_SUFFIX)) {
            long base = baseOf(file, LogSegment.LOG_SUFFIX);
            out.println("Dumping " + file);
            return dumpLog(file, base, out, deep);
        } else if (name.endsWith(LogSegment.TIME_INDEX_SUFFIX)) {
            long base = baseOf(file, LogSegment.TIME_INDEX_SUFFIX);
            out.println("Dumping " + file);
            return dumpTimeIndex(file, base, out);
        } else if (name.endsWith(LogSegment.TXN_INDEX_SUFFIX)) {
            long base = baseOf(file, LogSegment.TXN_INDEX_SUFFIX);
            out.println("Dumping " + file);
            return dumpTxnIndex(file, base, out);
        } else if (name.endsWith(LogSegment.INDEX_SUFFIX)) {
            long base = baseOf(file, LogSegment.INDEX_SUFFIX);
            out.println("Dumping " + file);
            return dumpIndex(file, base, out);
        } else {
            throw new IllegalArgumentException(
                    file
                            + ": not a segment file (expected a .log, .index, .timeindex or .txnindex"
                            + " file)");
        }
    }

    private static long baseOf(Path file, String suffix) {
        Long b = LogLoader.baseOffsetOf(file.getFileName().toString(), suffix);
        if (b == null) {
            throw new IllegalArgumentException(
                    file
                            + ": not a segment file (segment file names are a 20-digit base"
                            + " offset and a suffix, e.g. 00000000000000000000.log)");
        }
        return b;
    }

    private static Summary dumpLog(Path file, long base, PrintStream out, boolean deep)
            throws IOException {
        out.println("Log starting offset: " + base);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            LogScanner sc = new LogScanner(ch, 0, size, -1, true, false);
            while (sc.next()) {
                ByteBuffer bytes = sc.batchBytes();
                MutableRecordBatch b =
                        MemoryRecords.readableRecords(bytes).batches().iterator().next();
                out.println(
                        "baseOffset: "
                                + b.baseOffset()
                                + " lastOffset: "
                                + b.lastOffset()
                                + " count: "
                                + b.countOrNull()
                                + " baseSequence: "
                                + b.baseSequence()
                                + " lastSequence: "
                                + b.lastSequence()
                                + " producerId: "
                                + b.producerId()
                                + " producerEpoch: "
                                + b.producerEpoch()
                                + " partitionLeaderEpoch: "
                                + b.partitionLeaderEpoch()
                                + " isTransactional: "
                                + b.isTransactional()
                                + " isControl: "
                                + b.isControlBatch()
                                + " deleteHorizonMs: "
                                + b.deleteHorizonMs()
                                + " position: "
                                + sc.position
                                + " "
                                + b.timestampType()
                                + ": "
                                + b.maxTimestamp()
                                + " size: "
                                + b.sizeInBytes()
                                + " magic: "
                                + b.magic()
                                + " compresscodec: "
                                + b.compressionType().name
                                + " crc: "
                                + b.checksum()
                                + " isvalid: "
                                + b.isValid());
                if (deep) {
                    for (Record r : b) {
                        out.println(
                                "| offset: "
                                        + r.offset()
                                        + " "
                                        + b.timestampType()
                                        + ": "
                                        + r.timestamp()
                                        + " keySize: "
                                        + r.keySize()
                                        + " valueSize: "
                                        + r.valueSize()
                                        + " sequence: "
                                        + r.sequence()
                                        + " headerKeys: "
                                        + headerKeys(r.headers())
                                        + (b.isControlBatch() ? controlText(r) : ""));
                    }
                }
            }
            if (sc.stopReason() != null) {
                out.println(
                        "Found "
                                + (size - sc.validEnd())
                                + " invalid bytes at the end of "
                                + file.getFileName()
                                + " (position "
                                + sc.validEnd()
                                + "): "
                                + sc.stopReason());
            }
            return new Summary(size, sc.validEnd(), sc.stopReason());
        }
    }

    /** Kafka's text for a control record: the marker type and coordinator epoch. */
    private static String controlText(Record r) {
        org.apache.kafka.common.record.internal.ControlRecordType type =
                org.apache.kafka.common.record.internal.ControlRecordType.parse(r.key());
        if (type == org.apache.kafka.common.record.internal.ControlRecordType.COMMIT
                || type == org.apache.kafka.common.record.internal.ControlRecordType.ABORT) {
            org.apache.kafka.common.record.internal.EndTransactionMarker m =
                    org.apache.kafka.common.record.internal.EndTransactionMarker.deserialize(r);
            return " endTxnMarker: " + type + " coordinatorEpoch: " + m.coordinatorEpoch();
        }
        return " controlType: " + type;
    }

    /** As Kafka's {@code DumpLogSegments} for a {@code .txnindex}: one line per aborted txn. */
    private static Summary dumpTxnIndex(Path file, long base, PrintStream out) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int whole = bytes.length - bytes.length % TxnIndex.ENTRY_SIZE;
        for (AbortedTxn a : TxnIndex.decode(ByteBuffer.wrap(bytes, 0, whole).slice())) {
            out.println(
                    "version: "
                            + TxnIndex.VERSION
                            + " producerId: "
                            + a.producerId()
                            + " firstOffset: "
                            + a.firstOffset()
                            + " lastOffset: "
                            + a.lastOffset()
                            + " lastStableOffset: "
                            + a.lastStableOffset());
        }
        String stop = null;
        if (whole < bytes.length) {
            stop = (bytes.length - whole) + " bytes after the last whole entry";
            out.println("Found " + stop + " in " + file.getFileName());
        }
        return new Summary(bytes.length, whole, stop);
    }

    private static List<String> headerKeys(Header[] headers) {
        List<String> keys = new ArrayList<>(headers.length);
        for (Header h : headers) {
            keys.add(h.key());
        }
        return keys;
    }

    private static Summary dumpIndex(Path file, long base, PrintStream out) throws IOException {
        ByteBuffer buf = readAll(file);
        for (int i = 0; i + OffsetIndex.ENTRY_SIZE <= buf.limit(); i += OffsetIndex.ENTRY_SIZE) {
            int rel = buf.getInt(i + OffsetIndex.RELATIVE_OFFSET_OFFSET);
            int pos = buf.getInt(i + OffsetIndex.POSITION_OFFSET);
            if (i > 0 && rel == 0 && pos == 0) {
                break; // preallocated tail
            }
            out.println("offset: " + (base + rel) + " position: " + pos);
        }
        return new Summary(buf.limit(), buf.limit(), null);
    }

    private static Summary dumpTimeIndex(Path file, long base, PrintStream out) throws IOException {
        ByteBuffer buf = readAll(file);
        for (int i = 0; i + TimeIndex.ENTRY_SIZE <= buf.limit(); i += TimeIndex.ENTRY_SIZE) {
            long ts = buf.getLong(i + TimeIndex.TIMESTAMP_OFFSET);
            int rel = buf.getInt(i + TimeIndex.RELATIVE_OFFSET_OFFSET);
            if (i > 0 && rel == 0 && ts == 0) {
                break; // preallocated tail
            }
            out.println("timestamp: " + ts + " offset: " + (base + rel));
        }
        return new Summary(buf.limit(), buf.limit(), null);
    }

    private static ByteBuffer readAll(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.allocate((int) ch.size());
            while (buf.hasRemaining() && ch.read(buf) >= 0) {
                // keep reading
            }
            buf.flip();
            return buf;
        }
    }
}
