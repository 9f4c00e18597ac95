package io.tierlog.server.meta;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out producer ids for InitProducerId. Ids are reserved in blocks: before the first id of a
 * block is handed out, the end of the block is persisted, so after any restart or crash the next id
 * is past every id ever given out, and an id is never reused.
 *
 * <p>Format of {@code <meta>/producer-ids.properties} (Java properties, rewritten atomically):
 * {@code next.block.start} = first id not yet reserved (int64, starts at 0).
 *
 * <p>A file that cannot be read (damaged outside tierlog) does not stop the server: it continues
 * from an id derived from the clock (milliseconds x 10^6), above any id a data dir can have handed
 * out, with an ERROR.
 *
 * <p>Thread-safe (synchronised).
 */
public final class ProducerIdManager {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerIdManager.class);
    private static final String FILE = "producer-ids.properties";
    private static final String KEY = "next.block.start";

    private final Path file;
    private final int blockSize;
    private long next;
    private long blockEnd;

    private ProducerIdManager(Path file, int blockSize, long reservedUpTo) {
        this.file = file;
        this.blockSize = blockSize;
        this.next = reservedUpTo;
        this.blockEnd = reservedUpTo;
    }

    public static ProducerIdManager open(Path metaDir, int blockSize) throws IOException {
        Files.createDirectories(metaDir);
        Path file = metaDir.resolve(FILE);
        long start = 0;
        if (Files.exists(file)) {
            try {
                start = readStart(file);
            } catch (IOException | RuntimeException e) {
                // Reusing an id could make the hot tier take a new producer's batches for an old
                // one's duplicates; a start far above any id a data dir can have handed out (ids
                // are reserved blocks counted from 0) keeps ids unique without the file.
                start = Math.multiplyExact(System.currentTimeMillis(), 1_000_000L);
                LOG.error(
                        "Cannot read {} ({}): continuing from producer id {}, above any id handed"
                                + " out before",
                        file,
                        e.toString(),
                        start);
            }
        }
        return new ProducerIdManager(file, blockSize, start);
    }

    private static long readStart(Path file) throws IOException {
        String v = MetaFiles.read(file).getProperty(KEY);
        if (v == null) {
            throw new IOException(file + " has no " + KEY);
        }
        long start;
        try {
            start = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IOException(file + ": bad " + KEY + " '" + v + "'", e);
        }
        if (start < 0) {
            throw new IOException(file + ": negative " + KEY);
        }
        return start;
    }

    /** A producer id never handed out before, by this or any earlier run. */
    public synchronized long nextProducerId() throws IOException {
        if (next >= blockEnd) {
            long end = Math.addExact(next, blockSize);
            Properties p = new Properties();
            p.setProperty(KEY, Long.toString(end));
            MetaFiles.writeAtomically(file, p, "tierlog producer id reservation");
            blockEnd = end;
        }
        return next++;
    }

    /** True if {@code producerId} was handed out by this or an earlier run. */
    public synchronized boolean wasIssued(long producerId) {
        return producerId >= 0 && producerId < next;
    }
}
