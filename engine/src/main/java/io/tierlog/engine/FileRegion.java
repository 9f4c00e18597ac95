package io.tierlog.engine;

import io.tierlog.hot.FileSlice;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * A byte range of a hot segment file, to be sent with {@code FileChannel.transferTo} (sendfile):
 * what a zero-copy fetch response writes. {@link #pin()} keeps the file open (a retention that
 * deletes the segment meanwhile closes it only after the last pin is released). Immutable, so
 * thread-safe.
 */
public final class FileRegion {
    /** An open channel of the region's file; closing releases it. Not thread-safe. */
    public interface Pin extends AutoCloseable {
        FileChannel channel();

        @Override
        void close();
    }

    private final FileSlice slice;

    FileRegion(FileSlice slice) {
        this.slice = slice;
    }

    /** Opens (or shares) the file's channel until {@link Pin#close()}. */
    public Pin pin() throws IOException {
        FileSlice.Pin p = slice.pin();
        return new Pin() {
            @Override
            public FileChannel channel() {
                return p.channel();
            }

            @Override
            public void close() {
                p.close();
            }
        };
    }

    /** Position of the first byte in the file. */
    public long position() {
        return slice.position();
    }

    /** Length in bytes. */
    public int sizeInBytes() {
        return slice.sizeInBytes();
    }

    @Override
    public String toString() {
        return "FileRegion(" + slice + ")";
    }
}
