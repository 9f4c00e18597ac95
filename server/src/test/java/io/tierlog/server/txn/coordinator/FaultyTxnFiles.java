package io.tierlog.server.txn.coordinator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * Real files whose journal appends fail while {@link #failWrites} is above zero (counting down).
 */
final class FaultyTxnFiles implements TxnFiles {
    int failWrites;

    @Override
    public List<Path> list(Path dir) throws IOException {
        return REAL.list(dir);
    }

    @Override
    public byte[] read(Path file) throws IOException {
        return REAL.read(file);
    }

    @Override
    public Appender create(Path file) throws IOException {
        Appender a = REAL.create(file);
        return new Appender() {
            @Override
            public void write(ByteBuffer b) throws IOException {
                if (failWrites > 0) {
                    failWrites--;
                    throw new IOException("injected: disk full");
                }
                a.write(b);
            }

            @Override
            public void force() throws IOException {
                a.force();
            }

            @Override
            public void close() throws IOException {
                a.close();
            }
        };
    }

    @Override
    public void move(Path from, Path to) throws IOException {
        REAL.move(from, to);
    }

    @Override
    public void deleteIfExists(Path file) throws IOException {
        REAL.deleteIfExists(file);
    }

    @Override
    public void fsyncDir(Path dir) throws IOException {
        REAL.fsyncDir(dir);
    }
}
