package io.tierlog.server.group.coordinator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real files, with a simulated kill -9 at the {@code failAt}-th mutating step (1-based): that
 * step fails (a write first writes a prefix of its bytes, as a write cut by a kill leaves in the
 * page cache), and so does every later one, as nothing runs after a kill. Optionally, the first
 * journal write blocks on a latch (to let records queue behind it). Thread-safe.
 */
final class FaultyOffsetFiles implements OffsetFiles {
    private final int failAt;
    private final AtomicInteger steps = new AtomicInteger();
    private final AtomicInteger writes = new AtomicInteger();
    private volatile boolean dead;
    volatile CountDownLatch blockFirstRecordWrite;
    volatile CountDownLatch firstRecordWriteStarted = new CountDownLatch(1);

    /** {@code failAt <= 0}: never fails. */
    FaultyOffsetFiles(int failAt) {
        this.failAt = failAt;
    }

    boolean dead() {
        return dead;
    }

    int steps() {
        return steps.get();
    }

    /** Writes of journal records (not of file headers or snapshots). */
    int recordWrites() {
        return writes.get();
    }

    private void step() throws IOException {
        if (dead) {
            throw new IOException("killed");
        }
        if (steps.incrementAndGet() == failAt) {
            dead = true;
            throw new IOException("killed at step " + failAt);
        }
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        if (dead) {
            throw new IOException("killed");
        }
        return REAL.list(dir);
    }

    @Override
    public byte[] read(Path file) throws IOException {
        if (dead) {
            throw new IOException("killed");
        }
        return REAL.read(file);
    }

    @Override
    public Appender create(Path file) throws IOException {
        step();
        return wrap(REAL.create(file), file);
    }

    @Override
    public Appender appendAt(Path file, long length) throws IOException {
        step();
        return wrap(REAL.appendAt(file, length), file);
    }

    private Appender wrap(Appender real, Path file) {
        boolean journal = file.getFileName().toString().endsWith(".journal");
        return new Appender() {
            @Override
            public void write(ByteBuffer b) throws IOException {
                boolean record = journal && b.remaining() != OffsetRecords.JOURNAL_MAGIC.length;
                if (record) {
                    writes.incrementAndGet();
                    firstRecordWriteStarted.countDown();
                    CountDownLatch block = blockFirstRecordWrite;
                    if (block != null) {
                        blockFirstRecordWrite = null;
                        try {
                            block.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IOException(e);
                        }
                    }
                }
                if (dead) {
                    throw new IOException("killed");
                }
                if (steps.incrementAndGet() == failAt) {
                    dead = true;
                    ByteBuffer prefix = b.duplicate();
                    prefix.limit(prefix.position() + b.remaining() / 2);
                    real.write(prefix);
                    throw new IOException("killed in a write at step " + failAt);
                }
                real.write(b);
            }

            @Override
            public void force() throws IOException {
                step();
                real.force();
            }

            @Override
            public void close() throws IOException {
                real.close(); // a kill closes files too
            }
        };
    }

    @Override
    public void move(Path from, Path to) throws IOException {
        step();
        REAL.move(from, to);
    }

    @Override
    public void deleteIfExists(Path file) throws IOException {
        step();
        REAL.deleteIfExists(file);
    }

    @Override
    public void fsyncDir(Path dir) throws IOException {
        step();
        REAL.fsyncDir(dir);
    }
}
