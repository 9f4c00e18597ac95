package io.tierlog.hot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict, read-only check of a segment's {@code .index} and {@code .timeindex} against its {@code
 * .log}: every entry in the file (a trimmed index has no preallocated tail, so a zeroed entry is an
 * error here) must name a batch that is really in the log. An offset-index entry must be (last
 * offset of a batch - base, start position of that batch), strictly increasing; a time-index entry
 * (max timestamp of the segment up to a batch, last offset of the batch holding that timestamp -
 * base), strictly increasing in timestamp. Used by tests and fault campaigns after a clean close
 * (which trims the indexes).
 *
 * <p>Thread-safety: stateless; the files must not change during the check.
 */
public final class IndexCheck {
    private IndexCheck() {}

    /**
     * Problems found in the indexes of the segment whose log file is {@code logFile}; empty if
     * none.
     */
    public static List<String> check(Path logFile) throws IOException {
        String name = logFile.getFileName().toString();
        Long base = LogLoader.baseOffsetOf(name, LogSegment.LOG_SUFFIX);
        if (base == null) {
            throw new IllegalArgumentException("not a segment log file: " + logFile);
        }
        Path dir = logFile.getParent();
        String stem = LogSegment.fileName(base);
        // batch start position -> last offset, and last offset -> running max timestamp
        Map<Long, Long> lastOffsetAt = new HashMap<>();
        Map<Long, Long> maxTsUpTo = new HashMap<>();
        List<String> problems = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(logFile, StandardOpenOption.READ)) {
            LogScanner sc = new LogScanner(ch, 0, ch.size(), base, true, true);
            long maxTs = -1;
            while (sc.next()) {
                lastOffsetAt.put(sc.position, sc.lastOffset);
                maxTs = Math.max(maxTs, sc.maxTimestamp);
                maxTsUpTo.put(sc.lastOffset, maxTs);
            }
            if (sc.validEnd() != ch.size()) {
                problems.add(
                        logFile + ": invalid batch at " + sc.validEnd() + ": " + sc.stopReason());
            }
        }
        Path index = dir.resolve(stem + LogSegment.INDEX_SUFFIX);
        if (Files.exists(index)) {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(index));
            if (b.limit() % OffsetIndex.ENTRY_SIZE != 0) {
                problems.add(index + ": size " + b.limit() + " is not whole entries");
            }
            long prevRel = -1;
            for (int i = 0; i + OffsetIndex.ENTRY_SIZE <= b.limit(); i += OffsetIndex.ENTRY_SIZE) {
                int rel = b.getInt(i + OffsetIndex.RELATIVE_OFFSET_OFFSET);
                int pos = b.getInt(i + OffsetIndex.POSITION_OFFSET);
                Long last = lastOffsetAt.get((long) pos);
                String at =
                        index
                                + " entry "
                                + (i / OffsetIndex.ENTRY_SIZE)
                                + " ("
                                + rel
                                + ", "
                                + pos
                                + ")";
                if (last == null) {
                    problems.add(at + ": no batch starts at that position");
                } else if (last != base + rel) {
                    problems.add(at + ": the batch there ends at offset " + last);
                }
                if (rel <= prevRel) {
                    problems.add(at + ": not increasing");
                }
                prevRel = rel;
            }
        }
        Path timeIndex = dir.resolve(stem + LogSegment.TIME_INDEX_SUFFIX);
        if (Files.exists(timeIndex)) {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(timeIndex));
            if (b.limit() % TimeIndex.ENTRY_SIZE != 0) {
                problems.add(timeIndex + ": size " + b.limit() + " is not whole entries");
            }
            long prevTs = Long.MIN_VALUE;
            for (int i = 0; i + TimeIndex.ENTRY_SIZE <= b.limit(); i += TimeIndex.ENTRY_SIZE) {
                long ts = b.getLong(i + TimeIndex.TIMESTAMP_OFFSET);
                int rel = b.getInt(i + TimeIndex.RELATIVE_OFFSET_OFFSET);
                Long max = maxTsUpTo.get(base + rel);
                String at =
                        timeIndex
                                + " entry "
                                + (i / TimeIndex.ENTRY_SIZE)
                                + " ("
                                + ts
                                + ", "
                                + rel
                                + ")";
                if (max == null) {
                    problems.add(at + ": no batch ends at that offset");
                } else if (max != ts) {
                    problems.add(at + ": the segment's max timestamp up to that batch is " + max);
                }
                if (ts <= prevTs) {
                    problems.add(at + ": not increasing");
                }
                prevTs = ts;
            }
        }
        return problems;
    }
}
